import type { Db } from '../executor.js';

/**
 * The named secret, made from `make()` the first time any instance asks. Two instances starting at once
 * both try to insert; the second insert does nothing and both read the one stored value.
 */
export async function gatewaySecret(db: Db, name: string, make: () => string, now: number): Promise<string> {
  const found = await db.selectFrom('gateway_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (found) return found.value;
  await db.runInTransaction((trx) =>
    trx
      .insertInto('gateway_secrets')
      .values({ name, value: make(), created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute(),
  );
  const stored = await db
    .selectFrom('gateway_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return stored.value;
}
