import fs from 'node:fs';
import type { Command } from 'commander';
import { anchorKeyFrom, keyFingerprint, newAnchorKey, publicKeyOf, signAnchor } from '../audit/anchors.ts';
import { UsageError, openLogForCli } from './open.ts';

export function anchorCommands(program: Command): void {
  program
    .command('anchor-key')
    .description('write a new Ed25519 private key for signing anchors to FILE (kept apart from the database)')
    .argument('<file>', 'where to write the key (PEM); an existing file is never overwritten')
    .action((file: string) => {
      let fd: number;
      try {
        // Readable by its owner only, and never written over: losing an anchor key must be a decision.
        fd = fs.openSync(file, 'wx', 0o600);
      } catch (error) {
        throw new UsageError(`cannot create ${file}: ${(error as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists already' : (error as Error).message}`);
      }
      const pem = newAnchorKey();
      fs.writeSync(fd, pem);
      fs.closeSync(fd);
      process.stdout.write(`wrote an anchor key to ${file}; its public key's fingerprint is ${keyFingerprint(publicKeyOf(anchorKeyFrom(pem)!))}\n`);
    });

  program
    .command('anchor')
    .description("print the log's head (seq, hash, time) signed with an anchor key, as one JSON line for an auditor to keep")
    .requiredOption('--key <file>', 'the Ed25519 private key (PEM), e.g. made by `tradebook anchor-key`')
    .action(async (options: { key: string }) => {
      let pem: string;
      try {
        pem = fs.readFileSync(options.key, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read the anchor key ${options.key}: ${(error as Error).message}`);
      }
      const key = anchorKeyFrom(pem);
      if (!key) throw new UsageError(`${options.key} is not an Ed25519 private key (PEM)`);
      const log = await openLogForCli();
      try {
        const seq = await log.lastSeq();
        if (seq === 0) throw new UsageError('the log is empty: there is no head to anchor');
        const [head] = await log.eventsAfter(seq - 1, 1);
        process.stdout.write(`${JSON.stringify(signAnchor({ seq, hash: head.hash, recordedAt: head.recorded_at }, key, new Date()))}\n`);
      } finally {
        await log.close();
      }
    });
}
