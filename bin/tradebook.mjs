#!/usr/bin/env node
// The tradebook command line, from its bundle, or from its sources when the bundle is not built or stale (bundle.mjs).
import { ENTRIES, importEntry } from './bundle.mjs';

const { main } = await importEntry(ENTRIES.tradebook, 'tradebook');
await main(process.argv);
