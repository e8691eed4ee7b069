// A reader of server-sent events (text/event-stream) over a fetch body: enough of the format for the
// gateway's status stream (event and data fields, comments, any line ending), with no dependency.
import { chunksOf } from './body.js';

export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * The events of a stream, as they arrive; ends when the server ends the stream, and with the signal's
 * reason when it aborts. `onData` hears of every chunk, comments (heartbeats) included, so a caller can
 * tell a quiet stream from a dead one.
 */
export async function* readEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onData?: () => void,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  // The complete lines of the buffer. Lines end in \n, \r\n or \r; while more may come, a \r at the very
  // end may be half of a \r\n, so it waits; at the end of the stream it ends its line.
  function* lines(final: boolean): Generator<string> {
    const ending = final ? /\r\n|\n|\r/ : /\r\n|\n|\r(?!$)/;
    for (;;) {
      const match = ending.exec(buffer);
      if (match === null) return;
      yield buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
    }
  }
  function* take(line: string): Generator<ServerSentEvent> {
    if (line === '') {
      if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
      event = '';
      data = [];
      return;
    }
    if (line.startsWith(':')) return; // a comment: the gateway's heartbeat
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  for await (const chunk of chunksOf(body, signal)) {
    onData?.();
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of lines(false)) yield* take(line);
  }
  buffer += decoder.decode();
  for (const line of lines(true)) yield* take(line);
  // An event not ended by a blank line when the stream ends is dropped, as the format says.
}
