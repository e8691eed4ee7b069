import { describe, expect, it } from 'vitest';
import { posMayOpen, type Viewer } from '../../src/domain/viewer.js';

const viewer = (role: Viewer['role'], userId = 'usr_me'): Viewer => ({
  userId,
  email: `${userId}@example.test`,
  role,
  merchantIds: ['mch_a'],
  sessionKey: 'k',
  actor: { kind: 'user', email: `${userId}@example.test` },
});

describe("the point of sale's sales", () => {
  it('open for a cashier only when it made the sale itself; for an owner or operator whoever made it (issue 35, finding 4)', () => {
    expect(posMayOpen(viewer('cashier'), 'usr_me')).toBe(true);
    // Another cashier's sale, and an order of the API or a payment link (nobody's sale).
    for (const maker of ['usr_other', null, undefined])
      expect(posMayOpen(viewer('cashier'), maker), String(maker)).toBe(false);
    for (const role of ['merchant', 'operator'] as const) {
      for (const maker of ['usr_me', 'usr_other', null, undefined])
        expect(posMayOpen(viewer(role), maker), `${role} ${String(maker)}`).toBe(true);
    }
  });
});
