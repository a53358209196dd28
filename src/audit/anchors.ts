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

/** What became of one anchor: it holds, or why not. */
export type AnchorCheck = { anchor: Anchor; holds: true } | { anchor: Anchor; holds: false; problem: string };

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

const KIB = 1024;

/**
 * The anchors of a file: one JSON object a line (blank lines skipped); a line that is not an anchor is named, and
 * text over `limits` is refused before it is read.
 */
export function parseAnchors(text: string, limits = ANCHOR_LIMITS): { ok: true; anchors: Anchor[] } | { ok: false; problem: string } {
  if (Buffer.byteLength(text) > limits.bytes) return { ok: false, problem: `more than ${limits.bytes / KIB} KiB of anchors: check at most ${limits.count} anchors at a time` };
  const anchors: Anchor[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    if (anchors.length === limits.count) return { ok: false, problem: `more than ${limits.count} anchors: check at most ${limits.count} at a time` };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, problem: `line ${index + 1} is not JSON` };
    }
    if (!isAnchor(value)) return { ok: false, problem: `line ${index + 1} is not an anchor (seq, hash, recordedAt, anchoredAt, publicKey, signature)` };
    anchors.push(value);
  }
  if (anchors.length === 0) return { ok: false, problem: 'no anchor in the file' };
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
      checks.push({ anchor, holds: false, problem: 'its signature does not match its contents and public key' });
      continue;
    }
    const stored = await hashAt(anchor.seq);
    if (stored === undefined) checks.push({ anchor, holds: false, problem: `the log has no event ${anchor.seq}: it ends before the anchored head` });
    else if (stored !== anchor.hash) checks.push({ anchor, holds: false, problem: `the log's event ${anchor.seq} has hash ${stored}, the anchor says ${anchor.hash}: the log was rewritten at or below seq ${anchor.seq}` });
    else checks.push({ anchor, holds: true });
  }
  return checks;
}
