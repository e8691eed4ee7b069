// A secret's first line from standard input. On a terminal it is read with echo off (the terminal in raw
// mode, each key handled here: Backspace takes a character back, Ctrl-C and Ctrl-D on nothing give up),
// so a password typed at `user add` never shows on the screen or in a recording of it. From a pipe or a
// file it is the first line as it comes.
import { AppError } from '../domain/errors.js';

/** What this needs of process.stdin: a readable stream, and on a terminal its raw mode. */
export interface SecretInput extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?: (raw: boolean) => unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  removeListener(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** The first line of `input`; `prompt` is written first on a terminal (to standard error), and a newline after. */
export async function readSecretLine(
  input: SecretInput,
  prompt: string,
  write: (text: string) => void,
): Promise<string> {
  if (input.isTTY === true && typeof input.setRawMode === 'function') return readWithoutEcho(input, prompt, write);
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function readWithoutEcho(input: SecretInput, prompt: string, write: (text: string) => void): Promise<string> {
  // Echo off before the prompt shows: whatever is typed (or pasted) once the prompt is seen is never echoed,
  // however late this process runs again after writing it.
  input.setRawMode!(true);
  write(prompt);
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null) => {
      input.removeListener('data', onData);
      input.setRawMode!(false);
      input.pause();
      write('\n');
      if (error === null) resolve(typed);
      else reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return finish(null);
        if (ch === '\u0003')
          return finish(new AppError('invalid_parameter', 'cancelled: no password was given', { param: 'password' }));
        if (ch === '\u0004') {
          if (typed === '') return finish(null);
          continue;
        }
        if (ch === '\u007f' || ch === '\b') {
          typed = Array.from(typed).slice(0, -1).join('');
          continue;
        }
        if (ch === '\u0015') {
          typed = ''; // Ctrl-U: start the line again
          continue;
        }
        if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
