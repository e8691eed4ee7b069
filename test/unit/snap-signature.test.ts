import { readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  accessTokenStringToSign,
  asymmetricStringToSign,
  bodyHash,
  minifyJson,
  parseSnapTimestamp,
  signAccessToken,
  signAsymmetric,
  signSymmetric,
  snapTimestamp,
  symmetricStringToSign,
  verifyAccessToken,
  verifyAsymmetric,
  verifySymmetric,
} from '../../src/payment-sources/snap/signature.js';

interface Vector {
  kind: 'symmetric-hmac-sha512' | 'asymmetric-access-token-rsa-sha256' | 'asymmetric-notify-rsa-sha256';
  stringToSign: string;
  signature_base64: string;
  [k: string]: string;
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const vectors = JSON.parse(fixture('snap-signature-vectors.json')) as Vector[];
const of = (kind: Vector['kind']) => vectors.filter((v) => v.kind === kind);

describe('known answers (test/fixtures/snap-signature-vectors.json)', () => {
  it('holds every kind', () => {
    expect(of('symmetric-hmac-sha512').length).toBe(2);
    expect(of('asymmetric-access-token-rsa-sha256').length).toBe(1);
    expect(of('asymmetric-notify-rsa-sha256').length).toBe(1);
  });

  it.each(of('symmetric-hmac-sha512'))('symmetric $path', (v) => {
    const parts = {
      method: v.method!,
      path: v.path!,
      accessToken: v.accessToken!,
      body: v.body!,
      timestamp: v.timestamp!,
    };
    expect(symmetricStringToSign(parts)).toBe(v.stringToSign);
    expect(signSymmetric(v.clientSecret!, parts, 'base64')).toBe(v.signature_base64);
    const hex = Buffer.from(v.signature_base64, 'base64').toString('hex');
    expect(signSymmetric(v.clientSecret!, parts, 'hex')).toBe(hex);
    expect(verifySymmetric(v.clientSecret!, parts, v.signature_base64)).toBe(true);
    expect(verifySymmetric(v.clientSecret!, parts, hex)).toBe(true);
    expect(verifySymmetric(v.clientSecret!, parts, hex.toUpperCase())).toBe(true);
    expect(verifySymmetric('other-secret', parts, v.signature_base64)).toBe(false);
    expect(verifySymmetric(v.clientSecret!, { ...parts, body: `${v.body!} ` }, v.signature_base64)).toBe(true);
    expect(verifySymmetric(v.clientSecret!, { ...parts, timestamp: `${v.timestamp!}x` }, v.signature_base64)).toBe(
      false,
    );
  });

  it.each(of('asymmetric-access-token-rsa-sha256'))('access token $clientKey', (v) => {
    const key = fixture(v.public_key_file!);
    expect(accessTokenStringToSign(v.clientKey!, v.timestamp!)).toBe(v.stringToSign);
    expect(verifyAccessToken(key, v.clientKey!, v.timestamp!, v.signature_base64)).toBe(true);
    expect(verifyAccessToken(key, `${v.clientKey!}X`, v.timestamp!, v.signature_base64)).toBe(false);
  });

  it.each(of('asymmetric-notify-rsa-sha256'))('notification $path', (v) => {
    const key = fixture(v.public_key_file!);
    const parts = { method: v.method!, path: v.path!, body: v.body!, timestamp: v.timestamp! };
    expect(asymmetricStringToSign(parts)).toBe(v.stringToSign);
    expect(verifyAsymmetric(key, parts, v.signature_base64)).toBe(true);
    // Pretty-printing the same body keeps the signature valid: the hash is over the minified text.
    const pretty = JSON.stringify(JSON.parse(v.body!), null, 2);
    expect(verifyAsymmetric(key, { ...parts, body: pretty }, v.signature_base64)).toBe(true);
    expect(verifyAsymmetric(key, { ...parts, body: v.body!.replace('00', '01') }, v.signature_base64)).toBe(false);
    expect(verifyAsymmetric(key, { ...parts, path: '/other' }, v.signature_base64)).toBe(false);
  });
});

describe('minifyJson', () => {
  it('removes whitespace outside strings only and keeps key order', () => {
    expect(minifyJson('{ "b" : 1,\n\t"a" : [ 1 , 2 ],\r\n "s": "a b\\" c" }')).toBe('{"b":1,"a":[1,2],"s":"a b\\" c"}');
    expect(minifyJson('{"x":"\\\\" , "y" : " "}')).toBe('{"x":"\\\\","y":" "}');
    expect(minifyJson('')).toBe('');
  });

  it('hashes an empty body as the empty string', () => {
    expect(bodyHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('round trips and rejections', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('signs and verifies access-token and notification signatures', () => {
    const ts = snapTimestamp(Date.UTC(2024, 4, 2, 7, 43, 8));
    expect(ts).toBe('2024-05-02T14:43:08+07:00');
    const sig = signAccessToken(privateKey, 'client', ts);
    expect(verifyAccessToken(publicKey, 'client', ts, sig)).toBe(true);
    expect(verifyAccessToken(other.publicKey, 'client', ts, sig)).toBe(false);
    const parts = { method: 'POST', path: '/snap/v1.0/qr/qr-mpm-notify', body: '{"a":1}', timestamp: ts };
    const n = signAsymmetric(privateKey, parts);
    expect(verifyAsymmetric(publicKey, parts, n)).toBe(true);
    expect(verifyAsymmetric(publicKey, parts, 'not base64!')).toBe(false);
    expect(verifyAsymmetric(publicKey, parts, '')).toBe(false);
  });

  it('rejects symmetric signatures of the wrong length or alphabet', () => {
    const parts = { method: 'POST', path: '/p', accessToken: 't', body: '', timestamp: 'ts' };
    const good = signSymmetric('s', parts, 'hex');
    expect(verifySymmetric('s', parts, good.slice(0, -2))).toBe(false);
    expect(verifySymmetric('s', parts, `${good.slice(0, -1)}g`)).toBe(false);
    expect(verifySymmetric('s', parts, '')).toBe(false);
  });

  it('parses timestamps with an offset only', () => {
    expect(parseSnapTimestamp('2024-05-02T14:43:08+07:00')).toBe(Date.UTC(2024, 4, 2, 7, 43, 8));
    expect(parseSnapTimestamp('2024-03-05T10:37:16.196Z')).toBe(Date.UTC(2024, 2, 5, 10, 37, 16, 196));
    expect(parseSnapTimestamp('2021-01-08T09:57:39.000123+07:00')).toBe(Date.UTC(2021, 0, 8, 2, 57, 39));
    expect(parseSnapTimestamp('2024-05-02 14:43:08')).toBeNull();
    expect(parseSnapTimestamp('2024-05-02T14:43:08')).toBeNull();
    expect(parseSnapTimestamp('2024-13-40T14:43:08Z')).toBeNull();
  });
});
