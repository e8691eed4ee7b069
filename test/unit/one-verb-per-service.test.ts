// A service file is one business step: it exports one function (the verb), with its input and output
// types and named constants beside it. A second exported function is either a rule (it belongs in the
// domain), a step of its own (its own file), or, in the few files listed below, the same step in another
// form, each with its reason. The scan reads every file under src/services.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

const ROOT = REPO_ROOT;

/** Files that export more than one function, each with why the functions are one step. */
const ALLOWED: Record<string, string> = {
  'src/services/payments/record-payment.ts':
    'recordPayment, and recordPaymentIn and recordPaymentsIn: the same step inside a unit of work its caller already holds, for one report or several',
  'src/services/refunds/refunds-of.ts':
    "a transaction's refunds: for one transaction, and for a page of them in one read",
  'src/services/merchants/authenticate-api-key.ts':
    'finding the key behind a request, and the same through the 5 s cache the API uses',
  'src/services/sources/live-source.ts':
    'whether a merchant has an enabled live source: for one, and for a list in one read',
  'src/services/transactions/idempotency-row.ts': "a create's idempotency record: its key, and its row",
  'src/services/transactions/transaction-streams.ts':
    'not a step: the parts the console search and the CSV export share (their streams per merchant and mode, the order, the payments read with a page)',
};

/** The names of the functions a source exports (declarations, and constants holding a function). */
function exportedFunctions(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/^export (?:async )?function\*? ?(\w+)/gm)) names.push(match[1]!);
  for (const match of source.matchAll(
    /^export const (\w+)(?:: [^=]+)? = (?:async )?(?:\([^)]*\)|\w+)(?:: [^=]+)? =>/gm,
  ))
    names.push(match[1]!);
  return names;
}

describe('one verb per service file', () => {
  const files = sourceFiles('src/services');

  it('every file under src/services exports at most one function, but those allowed with a reason', () => {
    const more = files
      .filter((file) => !(file in ALLOWED))
      .map((file) => ({ file, verbs: exportedFunctions(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ verbs }) => verbs.length > 1)
      .map(({ file, verbs }) => `${file}: ${verbs.join(', ')}`);
    expect(more).toEqual([]);
  });

  it('every allowed file exists and still exports more than one function', () => {
    for (const file of Object.keys(ALLOWED)) {
      expect(files, file).toContain(file);
      expect(exportedFunctions(readFileSync(join(ROOT, file), 'utf8')).length, file).toBeGreaterThan(1);
    }
  });

  it('sees the shapes it counts', () => {
    const source = [
      'export async function one(deps) {}',
      'export function two() {}',
      'export const three = (a: number): number => a;',
      'export const four = async (deps: Deps) => 1;',
      'export const LIMIT = 5;',
      'export const table: ReadonlySet<string> = new Set();',
      'export interface Five {}',
      'export class Six {}',
      'function hidden() {}',
    ].join('\n');
    expect(exportedFunctions(source)).toEqual(['one', 'two', 'three', 'four']);
  });
});
