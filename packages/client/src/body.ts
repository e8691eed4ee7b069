/**
 * The chunks of a fetch body, ending with `signal`'s reason as soon as it aborts. fetch is given the
 * same signal, but Node 20's fetch does not always pass an abort on to a body that is already being read
 * (seen as a status stream a caller's abort did not stop), so the read is cancelled here as well, which
 * also closes the connection.
 */
export async function* chunksOf(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) return;
      yield value;
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    // Leaving early (a final status seen, an error) closes the connection; after the end it does nothing.
    await reader.cancel().catch(() => {});
  }
}

/** The whole body, or the signal's reason if it aborts first. */
export async function readAll(response: Response, signal: AbortSignal): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(response.body, signal)) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
