#!/usr/bin/env node
// The benchmark (`npm run bench [-- --quick]`); TypeScript sources are loaded through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../bench/main.ts');
await main(process.argv.slice(2));
