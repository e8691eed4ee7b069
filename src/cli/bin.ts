import { runCli } from './main.js';

const code = await runCli(process.argv.slice(2));
// `serve` resolves only after a clean shutdown; every other command is done here.
process.exitCode = code;
