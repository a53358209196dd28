#!/usr/bin/env node
// The tradebook command line, from its bundle (built or refreshed first when the sources changed).
import { importBundle } from './bundle.mjs';

const { main } = await importBundle('src/cli/main.ts', 'tradebook');
await main(process.argv);
