#!/usr/bin/env node
// The tradebook command line; TypeScript sources are loaded through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
