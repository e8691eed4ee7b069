// The client's types cannot drift from the server's schemas: the committed file is what the generator
// renders now, and the type-level check (test/types/client-types-match.ts) compiles, and stops compiling
// when a field is taken out of the client's types.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/context.js';
import { CLIENT_TYPES_PATH, renderClientTypes } from '../../scripts/client-types.js';

const CHECK = fileURLToPath(new URL('../types/client-types-match.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/** Compiles the type-level check, with the client's types file replaced by `clientTypes`; returns the errors. */
function typeErrors(clientTypes: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    TSCONFIG,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  const same = (a: string) => a.replace(/\\/g, '/') === CLIENT_TYPES_PATH.replace(/\\/g, '/');
  host.readFile = (name) => (same(name) ? clientTypes : readFile(name));
  host.getSourceFile = (name, version, onError, shouldCreate) =>
    same(name) ? ts.createSourceFile(name, clientTypes, version) : getSourceFile(name, version, onError, shouldCreate);
  const program = ts.createProgram({ rootNames: [CHECK], options: { ...parsed.options, noEmit: true }, host });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');

// No database here: once, on the SQLite pass.
describe.skipIf(onPostgres)('the client types and the server schemas', () => {
  it('the committed api-types.ts is what `npm run client:types` renders from the schemas', () => {
    expect(committed, 'run `npm run client:types` and commit the result').toBe(renderClientTypes());
  });

  it('the type-level check compiles against the committed types', () => {
    expect(typeErrors(committed)).toEqual([]);
  }, 60_000);

  it.each([
    ['a field of Transaction', /^ {2}paid_late: boolean;$/m],
    ['a field of the nested Payment', /^ {2}payer_name: string \| null;$/m],
    ['a field of a page', /^ {2}has_more: boolean;$/m],
    ['a field of a webhook event', /^ {2}created_at: string;\n {2}data: ReportedPayment;$/m],
    ['an error code', /^ {2}\| 'quota_exceeded'$/m],
  ])(
    'fails when %s is taken out of the client types',
    (_what, line) => {
      expect(committed).toMatch(line);
      const broken = committed.replace(line, (m) =>
        m.includes('data: ReportedPayment') ? '  data: ReportedPayment;' : '',
      );
      expect(typeErrors(broken).join('\n')).toMatch(/does not satisfy the constraint 'true'/);
    },
    60_000,
  );

  it('fails when a field the server does not send is added, or a required one made optional', () => {
    const constraint = /does not satisfy the constraint 'true'/;
    expect(
      typeErrors(committed.replace(/^ {2}paid_late: boolean;$/m, '  paid_late: boolean;\n  settled: boolean;')).join(
        '\n',
      ),
    ).toMatch(constraint);
    expect(typeErrors(committed.replace(/^ {2}paid_late: boolean;$/m, '  paid_late?: boolean;')).join('\n')).toMatch(
      constraint,
    );
  }, 60_000);
});
