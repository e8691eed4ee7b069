import { runCli } from './main.js';

// `.env` in the working directory (or ENV_FILE) gives settings the environment does not.
const code = await runCli(process.argv.slice(2), undefined, process.env, { envFileDir: process.cwd() });
// `serve` resolves only after a clean shutdown; every other command is done here.
process.exitCode = code;
