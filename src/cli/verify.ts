import fs from 'node:fs';
import type { Command } from 'commander';
import { type Anchor, type AnchorCheck, checkAnchors, keyFingerprint, parseAnchors } from '../audit/anchors.ts';
import { StorageFault } from '../storage/errors.ts';
import { openStored, storageErrorOf } from '../storage/open-engine.ts';
import { auditReads } from '../audit/reads.ts';
import { releaseReadModels } from '../company.ts';
import { verify } from '../read-models/verify.ts';
import { EXIT } from './exit.ts';
import { UsageError, cliDatabase } from './open.ts';

/** The anchors of a file, or the one line saying why there are none. */
function readAnchors(file: string): Anchor[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the anchors ${file}: ${(error as Error).message}`);
  }
  const parsed = parseAnchors(text);
  if (!parsed.ok) throw new UsageError(`${file}: ${parsed.problem}`);
  return parsed.anchors;
}

/** What names an anchor for the auditor: its seq, its signer's fingerprint and when it was made. */
function anchorName({ anchor }: AnchorCheck) {
  return { seq: anchor.seq, key: keyFingerprint(anchor.publicKey), anchoredAt: anchor.anchoredAt };
}

/** One anchor's outcome, naming it so the auditor knows which one failed. */
function anchorLine(check: AnchorCheck): string {
  const { seq, key, anchoredAt } = anchorName(check);
  const name = `anchor of seq ${seq} (key ${key}, anchored ${anchoredAt})`;
  return check.holds ? `${name}: holds` : `${name}: FAILED: ${check.problem}`;
}

/**
 * The database as it is, without the migrations or catch-up an ordinary open runs (verify must see what is there):
 * the chain and the read tables in one snapshot, nothing left behind, then the anchors against the log.
 */
async function check(anchors: Anchor[] | undefined) {
  const stored = openStored(cliDatabase());
  try {
    const { chain, projections } = await stored.fresh((fresh) => verify(releaseReadModels, fresh));
    return { chain, projections, anchors: anchors && (await checkAnchors(anchors, auditReads(stored.readOn).hashAt)) };
  } finally {
    await stored.close();
  }
}

export function verifyCommand(program: Command): void {
  program
    .command('verify')
    .description("check the log's hash chain and that the read tables equal a fresh rebuild (and the log still holds anchored heads); exit 1 when any fails")
    .option('--anchor <file>', 'also check the signed anchors in FILE (one a line, as `tradebook anchor` prints them)')
    .option('--json', 'print one JSON object: ok, the chain, the read tables, the anchors')
    .action(async (options: { anchor?: string; json?: boolean }) => {
      const anchors = options.anchor === undefined ? undefined : readAnchors(options.anchor);
      let checked;
      try {
        checked = await check(anchors);
      } catch (error) {
        // A full or failing disk (the rebuild's scratch database is written beside the file) is no finding either way.
        const fault = storageErrorOf(error);
        if (!(fault instanceof StorageFault)) throw error;
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ ok: null, couldNotCheck: fault.message })}\n`
            : `verify: COULD NOT CHECK: ${fault.message}; the read tables were not compared, run it again once that is fixed\n`,
        );
        process.exitCode = EXIT.usage;
        return;
      }
      const { chain, projections, anchors: anchorChecks = [] } = checked;
      const failedAnchors = anchorChecks.filter((check) => !check.holds);
      const ok = chain.ok && projections.ok && failedAnchors.length === 0;
      if (options.json) {
        const tables = { ok: projections.ok, count: projections.tables, differences: projections.differences };
        const anchorsShown = anchors && anchorChecks.map((check) => ({ ...anchorName(check), holds: check.holds, ...(check.holds ? {} : { problem: check.problem }) }));
        process.stdout.write(`${JSON.stringify({ ok, chain, tables, ...(anchorsShown && { anchors: anchorsShown }) })}\n`);
      } else {
        for (const difference of projections.differences) process.stderr.write(`${difference}\n`);
        for (const check of anchorChecks) process.stderr.write(`${anchorLine(check)}\n`);
        const chainPart = chain.ok ? `hash chain of ${chain.events} events intact` : `hash chain broken at seq ${chain.seq} (${chain.stream}): ${chain.problem}`;
        const tablesPart = projections.ok
          ? `${projections.tables} read tables equal a fresh rebuild`
          : `the read tables differ from a fresh rebuild (${projections.differences.length} found)`;
        const anchorsPart = anchors === undefined ? '' : `; ${anchorChecks.length - failedAnchors.length} of ${anchorChecks.length} anchors hold`;
        process.stdout.write(`verify: ${ok ? 'OK' : 'FAILED'}: ${chainPart}; ${tablesPart}${anchorsPart}\n`);
      }
      if (!ok) process.exitCode = EXIT.problemsFound;
    });
}
