// @ts-check
// Splits a callgrind count into what the request path itself ran and what V8 did beside it.
//
// Why: after the warm-up ab-instructions gives, V8 is still optimising. Measured on 63c5776 and main
// (sqlite cqris-fresh, 600 creates after 1200), TurboFan's compiler was 36-49% of the whole count, and a
// major garbage collection landing in the 600 requests or not moved one build's figure from 2.37 to
// 3.26 million instructions per request. Both are real costs, but they say when V8 chose to compile or
// collect, not what a request costs, so each run also shows them apart and the `rest`.
import { execFileSync } from 'node:child_process';

// Function names as callgrind_annotate prints them, matched in this order (the first match wins).
const COMPILER = /v8::internal::compiler::|v8::internal::Zone|OptimizedCompilation|TurbofanCompilationJob/;
// Collector work by the name of its classes (marking and scavenging visitors, sweeping, evacuation, page
// bookkeeping, root visits) and the write barrier: close, not exact, which is enough to see a major GC.
const GC =
  /Visitor|Marking|Sweep|Scaveng|Evacuat|MemoryChunk|RememberedSet|SlotSet|heap::base::|cppgc::|IterateObjectCache|GCTracer|v8::internal::(Heap|MarkCompact|PagedSpace|MemoryAllocator)|Builtins_RecordWrite/;

/**
 * @param {string} file a callgrind output file
 * @returns {{ total: number, compiler: number, gc: number, rest: number }} instructions
 */
export function splitCallgrind(file) {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  let total = 0;
  let compiler = 0;
  let gc = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([ \d.]+%\)\s+(.*)$/.exec(line);
    if (!m || m[2].includes('PROGRAM TOTALS')) continue;
    const n = Number(m[1].replace(/,/g, ''));
    total += n;
    if (COMPILER.test(m[2])) compiler += n;
    else if (GC.test(m[2])) gc += n;
  }
  return { total, compiler, gc, rest: total - compiler - gc };
}
