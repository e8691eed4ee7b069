import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as core from './migrations/001-core.js';

// Migrations are listed in code rather than read from a folder, so the same list works from TypeScript
// sources, from dist/, and from a bundled install.
const MIGRATIONS: Record<string, Migration> = {
  '001-core': core,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
