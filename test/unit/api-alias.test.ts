import { describe, expect, it } from 'vitest';
import { apiAliasRewrite } from '../../src/http/api-alias.js';

describe('apiAliasRewrite', () => {
  it('maps /api/api/... to /api/..., keeping the rest byte for byte', () => {
    expect(apiAliasRewrite('/api/api/payment-gateway/cqris?amount=1000')).toBe('/api/payment-gateway/cqris?amount=1000');
    expect(apiAliasRewrite('/api/api/payment-gateway/%63status')).toBe('/api/payment-gateway/%63status');
    expect(apiAliasRewrite('/api/api')).toBe('/api');
    expect(apiAliasRewrite('/api/api?x=1')).toBe('/api?x=1');
  });

  it('sees the doubled segment through the percent-escapes the router decodes', () => {
    expect(apiAliasRewrite('/api/%61pi/payment-gateway/cstatus')).toBe('/%61pi/payment-gateway/cstatus');
    expect(apiAliasRewrite('/%61%70%69/api/payment-gateway/cstatus')).toBe('/api/payment-gateway/cstatus');
  });

  it('leaves every other URL alone', () => {
    for (const url of ['/', '/api', '/api/payment-gateway/cqris', '/api/apix/payment-gateway/cqris', '/API/api/x', '/api%2Fapi/x', '/api//api/x', '/c/trx_1', '/api/%41pi/x']) {
      expect(apiAliasRewrite(url), url).toBe(url);
    }
    // Rewritten once only: the second mount never had a third.
    expect(apiAliasRewrite('/api/api/api/payment-gateway/cqris')).toBe('/api/api/payment-gateway/cqris');
  });
});
