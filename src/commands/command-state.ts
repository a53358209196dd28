import type { CatalogueState } from './catalogue-state.ts';
import type { ContractorState } from '../records/contractor/deciders.ts';
import type { DocumentsState } from './documents.ts';

/** Everything the deciders may read. */
export type CommandState = CatalogueState & ContractorState & DocumentsState;
