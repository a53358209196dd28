import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { DocumentType } from '../../records/document/events.ts';
import type { View } from './layout.ts';
import { documentHref } from './links.ts';
import { day, statusName, typeName } from './show.ts';

/** A node of a document's dependency tree as the API serves it. */
export interface TreeNode {
  id: number;
  type: string;
  name: string;
  created: string | null;
  status: number;
  isThis: number;
  childes: TreeNode[];
}

const BOX_W = 260;
const BOX_H = 48;
const COLUMN = BOX_W + 48;
const ROW = BOX_H + 14;
const MARGIN = 8;

interface Placed {
  node: TreeNode;
  x: number;
  y: number;
  parent: Placed | undefined;
}

/**
 * Lays the trees out left to right: a node's column is its depth, each leaf takes the next row, and a parent sits
 * level with the middle of its children, so the picture reads as the documents were made from one another.
 */
function layout(roots: TreeNode[]): { placed: Placed[]; rows: number; columns: number } {
  const placed: Placed[] = [];
  let rows = 0;
  let columns = 0;
  const place = (node: TreeNode, depth: number, parent: Placed | undefined): number => {
    const at: Placed = { node, x: MARGIN + depth * COLUMN, y: 0, parent };
    placed.push(at);
    columns = Math.max(columns, depth + 1);
    if (node.childes.length === 0) {
      at.y = MARGIN + rows++ * ROW;
    } else {
      const ys = node.childes.map((child) => place(child, depth + 1, at));
      at.y = (ys[0] + ys[ys.length - 1]) / 2;
    }
    return at.y;
  };
  for (const root of roots) place(root, 0, undefined);
  return { placed, rows, columns };
}

const edge = (from: Placed, to: Placed) => {
  const [x1, y1, x2, y2] = [from.x + BOX_W, from.y + BOX_H / 2, to.x, to.y + BOX_H / 2];
  const bend = (x2 - x1) / 2;
  return html`<path d="M${x1} ${y1} C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}" fill="none" stroke="#8aa4c8" stroke-width="1.5"/>`;
};

/** A tree document's number and date, by `type-id`. */
export type NumbersOf = Map<string, { number: string | null; date: string }>;

const box = ({ t }: View, numbers: NumbersOf) => ({ node, x, y }: Placed) => {
  const self = node.isThis === 1;
  const known = numbers.get(`${node.type}-${node.id}`);
  const name = typeName(t, node.type);
  const label = known?.number ? `${name} № ${known.number}` : `${name} #${node.id}`;
  const date = known ? day(known.date) : node.created === null ? t.document.noDate : day(node.created);
  const detail = `${date} · ${statusName(t, node.status)}`;
  return html`<a href="${documentHref(node.type, node.id)}" data-node="${node.type}-${node.id}"${self ? html` data-this="1"` : ''}>
<title>${label}, ${detail} (${t.document.ref(node.type, node.id)})${self ? `: ${t.document.thisOne}` : ''}</title>
<rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="5" fill="${self ? '#1f3a5f' : node.status === 1 ? '#eaf3ea' : '#f3f3f3'}" stroke="${self ? '#1f3a5f' : '#9aa7b5'}" stroke-width="${self ? 2.5 : 1}"/>
<text x="${x + 8}" y="${y + 19}" font-size="13" font-weight="600" fill="${self ? '#fff' : '#1d232a'}">${label}</text>
<text x="${x + 8}" y="${y + 37}" font-size="11" fill="${self ? '#dfe7f1' : '#46515e'}">${detail}</text>
</a>`;
};

/** Every document of a tree (or a money document's forest), as type and id. */
export function treeDocuments(tree: TreeNode | TreeNode[]): { type: DocumentType; id: number }[] {
  const walk = (node: TreeNode): { type: DocumentType; id: number }[] => [{ type: node.type as DocumentType, id: node.id }, ...node.childes.flatMap(walk)];
  return (Array.isArray(tree) ? tree : [tree]).flatMap(walk);
}

/** A document's dependency tree (one tree, or a money document's forest) as an SVG picture: each node, named by its number and date, links to its page, this one highlighted. */
export function treeSvg(view: View, tree: TreeNode | TreeNode[], numbers: NumbersOf): HtmlEscapedString | Promise<HtmlEscapedString> {
  const { placed, rows, columns } = layout(Array.isArray(tree) ? tree : [tree]);
  const width = MARGIN * 2 + (columns - 1) * COLUMN + BOX_W;
  const height = MARGIN * 2 + Math.max(rows, 1) * ROW - (ROW - BOX_H);
  return html`<div class="scroll" role="region" aria-label="${view.t.document.treeLabel}" tabindex="0"><svg class="tree" xmlns="http://www.w3.org/2000/svg" role="group" aria-label="${view.t.document.treeLabel}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
${placed.filter((p) => p.parent !== undefined).map((p) => edge(p.parent!, p))}
${placed.map(box(view, numbers))}
</svg></div>`;
}
