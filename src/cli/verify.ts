import type { Command } from 'commander';
import { verifyChain } from '../audit/verify-chain.ts';
import { compareWithRebuild } from '../audit/compare.ts';
import { storageFaultOf } from '../storage/sqlite/storage-fault.ts';
import { openExistingReadonly } from './open.ts';

export function verifyCommand(program: Command): void {
  program
    .command('verify')
    .description("check the log's hash chain and that the read tables equal a fresh rebuild; exit 1 when either fails")
    .action(() => {
      // Opened as it is, without the migrations or catch-up an ordinary open runs: verify must see what is there.
      const db = openExistingReadonly();
      let checked;
      try {
        checked = { chain: verifyChain(db), projections: compareWithRebuild(db) };
      } catch (error) {
        // A full or failing disk (the rebuild's scratch database is written beside the file) is no finding either way.
        const fault = storageFaultOf(error);
        if (!fault) throw error;
        process.stdout.write(`verify: COULD NOT CHECK: ${fault.message}; the read tables were not compared, run it again once that is fixed\n`);
        process.exitCode = 2;
        return;
      } finally {
        db.close();
      }
      const { chain, projections } = checked;
      for (const difference of projections.differences) process.stderr.write(`${difference}\n`);
      const chainPart = chain.ok ? `hash chain of ${chain.events} events intact` : `hash chain broken at seq ${chain.seq} (${chain.stream}): ${chain.problem}`;
      const tablesPart = projections.ok
        ? `${projections.tables} read tables equal a fresh rebuild`
        : `the read tables differ from a fresh rebuild (${projections.differences.length} found)`;
      process.stdout.write(`verify: ${chain.ok && projections.ok ? 'OK' : 'FAILED'}: ${chainPart}; ${tablesPart}\n`);
      if (!chain.ok || !projections.ok) process.exitCode = 1;
    });
}
