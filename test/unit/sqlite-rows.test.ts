import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withJsRows } from '../../src/storage/engine/sqlite-rows.js';

// Rows built in JavaScript from raw arrays must be the very objects better-sqlite3 builds itself.
describe('withJsRows', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec(`create table a (id text primary key, n integer, big bigint, note text, x real);
             create table b (id text primary key, a_id text, note text);
             insert into a values ('a1', 1, 9007199254740991, 'it''s "quoted" \\ here', 1.5), ('a2', null, -5, null, null);
             insert into b values ('b1', 'a1', 'from b');`);
  });
  afterEach(() => db.close());

  const same = (sql: string, params: unknown[] = []) => {
    const expected = db.prepare(sql).all(...params);
    const rows = withJsRows(db.prepare(sql)).all(params);
    expect(rows).toEqual(expected);
    // Same keys in the same order, every one an own property.
    expect(rows.map((r) => Object.keys(r as object))).toEqual(expected.map((r) => Object.keys(r as object)));
    return rows;
  };

  it('gives the same rows for plain reads, NULLs, integers, reals and text of any content', () => {
    expect(same('select * from a order by id')).toHaveLength(2);
    same('select * from a where id = ?', ['a2']);
    expect(same('select * from a where id = ?', ['none'])).toEqual([]);
  });

  it('keeps the last of two same-named columns, as better-sqlite3 does', () => {
    const [row] = same('select a.*, b.* from a join b on b.a_id = a.id') as Array<Record<string, unknown>>;
    expect(row!.id).toBe('b1');
    expect(row!.note).toBe('from b');
  });

  it('quotes any column name as a key, never as code', () => {
    same(`select 1 as "a""b", 2 as "x y", 3 as "}; throw 1; //", 4 as "constructor", 5 as "0"`);
  });

  it('leaves statements it cannot rewrite untouched: no rows, a __proto__ column', () => {
    const insert = db.prepare("insert into b values ('b2', 'a2', 'n')");
    expect(withJsRows(insert)).toBe(insert);
    const proto = db.prepare('select 1 as "__proto__"');
    expect(withJsRows(proto)).toBe(proto);
  });

  it('serves RETURNING statements and iterate() alike', () => {
    const returning = withJsRows(db.prepare('insert into b values (?, ?, ?) returning id, note'));
    expect(returning.reader).toBe(true);
    expect(returning.all(['b3', 'a1', 'x'])).toEqual([{ id: 'b3', note: 'x' }]);
    expect([...withJsRows(db.prepare('select id from b order by id')).iterate([])]).toEqual([
      { id: 'b1' },
      { id: 'b3' },
    ]);
  });
});
