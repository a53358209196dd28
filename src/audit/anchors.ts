import { type KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { canonicalJson } from '../lib/canonical-json.ts';

/**
 * Anchors hold the operator to the log. The hash chain alone proves nothing against whoever can write the database
 * file: they can rewrite an event, recompute every later hash and rebuild. An anchor is the chain's head at a
 * moment (seq and hash), signed with an Ed25519 key that is not in the database; an auditor who keeps anchors can
 * later check that the log still holds exactly those heads. Rewriting anything at or below an anchored seq changes
 * the hash there, and cannot be hidden without the auditor's copy of the anchor.
 */
export interface Anchor {
  /** The last event's seq and hash when the anchor was made, and when that event was recorded. */
  seq: number;
  hash: string;
  recordedAt: string;
  /** When the anchor was made (UTC ISO). */
  anchoredAt: string;
  /** The signer's public key (SPKI DER, base64) and its signature (base64) over the four fields above. */
  publicKey: string;
  signature: string;
}

/** The log's head as an anchor signs it. */
export interface ChainHead {
  seq: number;
  hash: string;
  recordedAt: string;
}

/** The bytes signed: the anchored fields in canonical JSON, so any reader rebuilds them exactly. */
function signedBytes(anchor: Pick<Anchor, 'seq' | 'hash' | 'recordedAt' | 'anchoredAt'>): Buffer {
  const { seq, hash, recordedAt, anchoredAt } = anchor;
  return Buffer.from(canonicalJson({ anchoredAt, hash, recordedAt, seq }));
}

/** A new Ed25519 private key, PEM (PKCS#8), to be kept apart from the database. */
export function newAnchorKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** Reads an Ed25519 private key from PEM text; undefined when it is not one. */
export function anchorKeyFrom(pem: string): KeyObject | undefined {
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A short name of a public key (first 16 hex digits of the SHA-256 of its DER), to tell signers apart. */
export function keyFingerprint(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16);
}

/** The public half of an anchor key, as anchors carry it (SPKI DER, base64). */
export function publicKeyOf(privateKey: KeyObject): string {
  return (createPublicKey(privateKey).export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');
}

export function signAnchor(head: ChainHead, privateKey: KeyObject, anchoredAt: Date): Anchor {
  const unsigned = { ...head, anchoredAt: anchoredAt.toISOString() };
  const publicKey = publicKeyOf(privateKey);
  const signature = sign(null, signedBytes(unsigned), privateKey).toString('base64');
  return { seq: head.seq, hash: head.hash, recordedAt: head.recordedAt, anchoredAt: unsigned.anchoredAt, publicKey, signature };
}

/** Why an anchor does not hold: its signature, or the log's head at its seq (past the log's end, or another hash). */
export type AnchorProblem = { kind: 'signature' } | { kind: 'beyondLog'; seq: number } | { kind: 'rewritten'; seq: number; stored: string; anchored: string };

/** Why a file holds no anchors to check. */
export type AnchorsFileProblem =
  | { kind: 'notJson'; line: number }
  | { kind: 'notAnchor'; line: number }
  | { kind: 'empty' }
  | { kind: 'tooMany' | 'tooManyBytes'; limits: typeof ANCHOR_LIMITS };

const KIB = 1024;

/** An anchor's problem in English, as the command line and the API say it. */
export function anchorProblemText(reason: AnchorProblem | AnchorsFileProblem): string {
  switch (reason.kind) {
    case 'signature':
      return 'its signature does not match its contents and public key';
    case 'beyondLog':
      return `the log has no event ${reason.seq}: it ends before the anchored head`;
    case 'rewritten':
      return `the log's event ${reason.seq} has hash ${reason.stored}, the anchor says ${reason.anchored}: the log was rewritten at or below seq ${reason.seq}`;
    case 'notJson':
      return `line ${reason.line} is not JSON`;
    case 'notAnchor':
      return `line ${reason.line} is not an anchor (seq, hash, recordedAt, anchoredAt, publicKey, signature)`;
    case 'empty':
      return 'no anchor in the file';
    case 'tooMany':
      return `more than ${reason.limits.count} anchors: check at most ${reason.limits.count} at a time`;
    case 'tooManyBytes':
      return `more than ${reason.limits.bytes / KIB} KiB of anchors: check at most ${reason.limits.count} anchors at a time`;
  }
}

/** What became of one anchor: it holds, or why not (`reason`, and `problem` in English). */
export type AnchorCheck = { anchor: Anchor; holds: true } | { anchor: Anchor; holds: false; reason: AnchorProblem; problem: string };

const failed = (anchor: Anchor, reason: AnchorProblem): AnchorCheck => ({ anchor, holds: false, reason, problem: anchorProblemText(reason) });
const unreadable = (reason: AnchorsFileProblem) => ({ ok: false as const, reason, problem: anchorProblemText(reason) });

/** The shape an anchor must have; anything else is not an anchor. */
function isAnchor(value: unknown): value is Anchor {
  const a = value as Record<string, unknown> | null;
  return (
    a !== null &&
    typeof a === 'object' &&
    Number.isSafeInteger(a.seq) &&
    (a.seq as number) >= 1 &&
    ['hash', 'recordedAt', 'anchoredAt', 'publicKey', 'signature'].every((field) => typeof a[field] === 'string')
  );
}

/**
 * How many anchors, and how many bytes of them, one check takes: an auditor's anchors of a few years (one a day)
 * in about 0.2 s of checking. A request is refused beyond them before any is checked.
 */
export const ANCHOR_LIMITS = { count: 2_000, bytes: 1024 * 1024 };

/**
 * The anchors of a file: one JSON object a line (blank lines skipped); a line that is not an anchor is named, and
 * text over `limits` is refused before it is read.
 */
export function parseAnchors(text: string, limits = ANCHOR_LIMITS): { ok: true; anchors: Anchor[] } | { ok: false; reason: AnchorsFileProblem; problem: string } {
  if (Buffer.byteLength(text) > limits.bytes) return unreadable({ kind: 'tooManyBytes', limits });
  const anchors: Anchor[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (anchors.length === limits.count) return unreadable({ kind: 'tooMany', limits });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return unreadable({ kind: 'notJson', line: index + 1 });
    }
    if (!isAnchor(value)) return unreadable({ kind: 'notAnchor', line: index + 1 });
    anchors.push(value);
  }
  if (anchors.length === 0) return unreadable({ kind: 'empty' });
  return { ok: true, anchors };
}

/** Anchors checked between turns of the event loop: about 5 ms of signatures, so other requests are answered meanwhile. */
const CHECKED_A_TURN = 25;

/** The Ed25519 public key an anchor names, undefined when it names none. */
function publicKeyFrom(publicKey: string): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks each anchor: its signature is valid for its public key, and the log (`hashAt`: the stored hash of the
 * event with that seq, undefined past the log's end) still holds exactly its head.
 */
export async function checkAnchors(anchors: Anchor[], hashAt: (seq: number) => string | undefined | Promise<string | undefined>): Promise<AnchorCheck[]> {
  const checks: AnchorCheck[] = [];
  // Anchors of one signer share its key: it is read once.
  const keys = new Map<string, KeyObject | undefined>();
  for (const [index, anchor] of anchors.entries()) {
    if (index > 0 && index % CHECKED_A_TURN === 0) await nextTurn();
    if (!keys.has(anchor.publicKey)) keys.set(anchor.publicKey, publicKeyFrom(anchor.publicKey));
    const key = keys.get(anchor.publicKey);
    let signed: boolean;
    try {
      signed = key !== undefined && verify(null, signedBytes(anchor), key, Buffer.from(anchor.signature, 'base64'));
    } catch {
      signed = false;
    }
    if (!signed) {
      checks.push(failed(anchor, { kind: 'signature' }));
      continue;
    }
    const stored = await hashAt(anchor.seq);
    if (stored === undefined) checks.push(failed(anchor, { kind: 'beyondLog', seq: anchor.seq }));
    else if (stored !== anchor.hash) checks.push(failed(anchor, { kind: 'rewritten', seq: anchor.seq, stored, anchored: anchor.hash }));
    else checks.push({ anchor, holds: true });
  }
  return checks;
}
