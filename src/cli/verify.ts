import type { Command } from 'commander';
import { verifyChain } from '../audit/verify-chain.ts';
import { compareWithRebuild } from '../audit/compare.ts';
import { openExistingReadonly } from './open.ts';

export function verifyCommand(program: Command): void {
  program
    .command('verify')
    .description("check the log's hash chain and that the read tables equal a fresh rebuild; exit 1 when either fails")
    .action(() => {
      // Opened as it is, without the migrations or catch-up an ordinary open runs: verify must see what is there.
      const db = openExistingReadonly();
      const chain = verifyChain(db);
      const projections = compareWithRebuild(db);
      db.close();
      for (const difference of projections.differences) process.stderr.write(`${difference}\n`);
      const chainPart = chain.ok ? `hash chain of ${chain.events} events intact` : `hash chain broken at seq ${chain.seq} (${chain.stream}): ${chain.problem}`;
      const tablesPart = projections.ok
        ? `${projections.tables} read tables equal a fresh rebuild`
        : `the read tables differ from a fresh rebuild (${projections.differences.length} found)`;
      process.stdout.write(`verify: ${chain.ok && projections.ok ? 'OK' : 'FAILED'}: ${chainPart}; ${tablesPart}\n`);
      if (!chain.ok || !projections.ok) process.exitCode = 1;
    });
}
