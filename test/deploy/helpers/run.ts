// Runs a program without blocking the event loop and returns what it wrote; a failure throws with the
// command and its stderr (the end of it), which is what a failed deploy test needs to show.
import { spawn } from 'node:child_process';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  /** Return the result of a non-zero exit instead of throwing. */
  allowFailure?: boolean;
  /** Milliseconds; the process group is killed after it. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 900_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (result.code !== 0 && !options.allowFailure) {
        reject(
          new Error(
            `${command} ${args.join(' ')} exited with ${code ?? signal}\n${stderr.slice(-4000) || stdout.slice(-4000)}`,
          ),
        );
      } else resolve(result);
    });
    // A program that exits without reading its input (EPIPE) is not an error of the run.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
