#!/usr/bin/env node
// The tradebook command line, from its bundle (built or refreshed first when the sources changed).
import { ENTRIES, importBundle } from './bundle.mjs';

const { main } = await importBundle(ENTRIES.tradebook, 'tradebook');
await main(process.argv);
