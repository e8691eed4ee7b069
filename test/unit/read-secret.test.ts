// The password prompt of `user add` on a terminal (src/cli/read-secret.ts): echo is off before the prompt
// shows, so nothing typed once the prompt is seen can be echoed (CI on a loaded machine once saw a password
// echoed when the prompt came first and this process was descheduled before turning echo off).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readSecretLine, type SecretInput } from '../../src/cli/read-secret.js';

/** A terminal's standard input that records, in order, what is done to it and what is written. */
function terminal(log: string[]): SecretInput & { type(text: string): void } {
  const events = new EventEmitter();
  return {
    isTTY: true,
    setRawMode: (raw: boolean) => log.push(`raw ${raw}`),
    on: (event, listener) => events.on(event, listener),
    removeListener: (event, listener) => events.removeListener(event, listener),
    resume: () => log.push('resume'),
    pause: () => log.push('pause'),
    async *[Symbol.asyncIterator]() {},
    type: (text: string) => events.emit('data', Buffer.from(text)),
  };
}

describe('readSecretLine on a terminal', () => {
  it('turns echo off before it writes the prompt, and back on after the line', async () => {
    const log: string[] = [];
    const input = terminal(log);
    const line = readSecretLine(input, 'password: ', (text) => log.push(`write ${JSON.stringify(text)}`));
    input.type('typex\u007f secret\r');
    expect(await line).toBe('type secret');
    expect(log).toEqual(['raw true', 'write "password: "', 'resume', 'raw false', 'pause', 'write "\\n"']);
  });
});
