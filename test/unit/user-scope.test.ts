// Who may see, disable and invite whom on the users page (issue 27, section 3).
import { describe, expect, it } from 'vitest';
import { managesUser, mayInvite, seesUsersPage } from '../../src/domain/user-scope.js';
import type { Viewer } from '../../src/domain/viewer.js';

const viewer = (role: Viewer['role'], merchantIds: string[] = []): Viewer => ({
  userId: `usr_${role}`,
  email: `${role}@x.test`,
  role,
  merchantIds,
  sessionKey: 'k',
  actor: { kind: 'user', email: `${role}@x.test` },
});
const owner = viewer('merchant', ['mch_a', 'mch_b']);

describe('user scope', () => {
  it('an owner manages only cashiers all of whose merchants are its own', () => {
    expect(managesUser(owner, { id: 'usr_1', role: 'cashier', merchantIds: ['mch_a'] })).toBe(true);
    expect(managesUser(owner, { id: 'usr_2', role: 'cashier', merchantIds: ['mch_a', 'mch_b'] })).toBe(true);
    // Shared with a merchant it does not own: the operator's to manage.
    expect(managesUser(owner, { id: 'usr_3', role: 'cashier', merchantIds: ['mch_a', 'mch_c'] })).toBe(false);
    expect(managesUser(owner, { id: 'usr_4', role: 'cashier', merchantIds: [] })).toBe(false);
    expect(managesUser(owner, { id: 'usr_5', role: 'merchant', merchantIds: ['mch_a'] })).toBe(false);
    expect(managesUser(owner, { id: 'usr_6', role: 'operator', merchantIds: [] })).toBe(false);
    expect(managesUser(owner, { id: owner.userId, role: 'merchant', merchantIds: ['mch_a'] })).toBe(false);
  });

  it('an operator manages everyone but itself; a cashier nobody', () => {
    const ops = viewer('operator');
    expect(managesUser(ops, { id: 'usr_5', role: 'merchant', merchantIds: ['mch_a'] })).toBe(true);
    expect(managesUser(ops, { id: ops.userId, role: 'operator', merchantIds: [] })).toBe(false);
    const cashier = viewer('cashier', ['mch_a']);
    expect(managesUser(cashier, { id: 'usr_1', role: 'cashier', merchantIds: ['mch_a'] })).toBe(false);
    expect([ops, owner, cashier].map(seesUsersPage)).toEqual([true, true, false]);
  });

  it('an owner invites cashiers of its own merchants only; an operator anyone but an operator', () => {
    expect(mayInvite(owner, 'cashier', ['mch_b'])).toBe(true);
    expect(mayInvite(owner, 'cashier', ['mch_c'])).toBe(false);
    expect(mayInvite(owner, 'cashier', [])).toBe(false);
    expect(mayInvite(owner, 'merchant', ['mch_a'])).toBe(false);
    expect(mayInvite(viewer('operator'), 'cashier', ['mch_c'])).toBe(true);
    expect(mayInvite(viewer('operator'), 'operator', [])).toBe(false);
    expect(mayInvite(viewer('cashier', ['mch_a']), 'cashier', ['mch_a'])).toBe(false);
  });
});
