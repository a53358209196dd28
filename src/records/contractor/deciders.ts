import { z } from 'zod';
import type { ContractorFields, ContractorRecord } from './events.ts';
import type { NewEvent } from '../../events/store.ts';
import { type DomainError, fail, ok, type Result } from '../../lib/result.ts';
import { changedFields, type Decision } from '../../commands/decision.ts';
import type { Decider } from '../../commands/lookups.ts';
import { type CodeOverrides, recordId, requiredText, text } from '../../lib/validation.ts';

/** What the contractor commands need to know to decide. */
export interface ContractorState {
  contractor(id: number): ContractorRecord | undefined;
  nextContractorId(): number;
  contractorStatusExists(name: string): boolean;
}

export const CONTRACTOR_TYPES = ['ЮЛ', 'ИП', 'ФЛ'] as const;

/** Both phones are ERROR_PHONE, as the spec names it. */
export const contractorCodes: CodeOverrides = { phone1: 'ERROR_PHONE', phone2: 'ERROR_PHONE' };

const phone = () => requiredText(64).refine((s) => /^\d{10,15}$/.test(s.replace(/\D/g, '')), 'must hold 10 to 15 digits');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const contractorRecordFields = {
  type: z.enum(CONTRACTOR_TYPES, { error: `must be one of ${CONTRACTOR_TYPES.join(', ')}` }),
  name: requiredText(),
  contactPerson: requiredText(),
  phone1: phone(),
  inn: text().nullish(),
  kpp: text().nullish(),
  status: requiredText().nullish(),
  discount: z.number().min(0).max(100).nullish(),
  legalAddress: text().nullish(),
  actualAddress: text().nullish(),
  phone2: phone().nullish(),
  email: text().refine((s) => EMAIL.test(s), 'must look like an e-mail address').nullish(),
};

/** What only an import line carries (the API's records have no place for them). */
const importOnlyFields = {
  staff: z.object({ id: recordId(), name: requiredText() }).nullish(),
  bonus: z
    .object({
      status: z.union([z.literal(0), z.literal(1)]).optional(),
      percent: z.number().min(0).max(100).nullish(),
      usePercent: z.number().min(0).max(100).nullish(),
      code: text().nullish(),
    })
    .nullish(),
  giftCards: z.array(z.object({ code: requiredText(), price: z.union([text(), z.number().transform(String)]) })).max(100).nullish(),
  banks: z.array(z.object({ bik: text(), bank: text(), korNumber: text(), rasNumber: text() })).max(100).nullish(),
};

/** `inn`: 10 digits for a legal entity, 12 for an entrepreneur or a person; what is wrong with it, if anything. */
function innProblem(type: string, inn: string): string | undefined {
  const length = type === 'ЮЛ' ? 10 : 12;
  return new RegExp(`^\\d{${length}}$`).test(inn) ? undefined : `must be ${length} digits for a contractor of type ${type}`;
}

/**
 * The inn given with a record is checked against its type while the record is parsed, whenever both are valid in
 * themselves, so one answer lists a wrong inn beside the record's other wrong fields.
 */
function checkingInn<T extends z.ZodObject>(record: T): T {
  const fieldsValid = (issues: readonly { path?: readonly PropertyKey[] }[]) => !issues.some((issue) => issue.path?.[0] === 'type' || issue.path?.[0] === 'inn');
  return record.superRefine(
    (value, ctx) => {
      const { type, inn } = value as { type?: unknown; inn?: unknown };
      if (typeof type !== 'string' || typeof inn !== 'string') return;
      const problem = innProblem(type, inn);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['inn'], message: problem });
    },
    { when: (payload) => fieldsValid(payload.issues) },
  );
}

export const AddContractorInput = checkingInn(z.object(contractorRecordFields));
export const EditContractorInput = checkingInn(z.object({ id: recordId(), ...contractorRecordFields }));
export const ImportContractorInput = checkingInn(z.object({ id: recordId().optional(), ...contractorRecordFields, ...importOnlyFields }));

/** The widest contractor record (an import line's); the API's add and edit records are narrower cases of it. */
type ContractorInput = Omit<z.output<typeof ImportContractorInput>, 'id'>;
export type ImportContractor = z.output<typeof ImportContractorInput>;

export interface ContractorResult {
  id: number;
  name: string;
}

/** The inn against the type, for a decider: an edit keeps the current inn when it gives none, under a type it may change. */
function innErrors(type: string, inn: string | null | undefined): DomainError[] {
  const problem = inn == null ? undefined : innProblem(type, inn);
  return problem === undefined ? [] : [{ code: 'ERROR_INN', field: 'inn', message: `inn: ${problem}` }];
}

const NO_BONUS: ContractorFields['bonus'] = { status: 0, percent: null, usePercent: null, code: null };

function bonusOf(bonus: ContractorInput['bonus'], current = NO_BONUS): ContractorFields['bonus'] {
  if (bonus === null) return NO_BONUS;
  if (bonus === undefined) return current;
  return {
    status: bonus.status ?? current.status,
    percent: bonus.percent === undefined ? current.percent : bonus.percent,
    usePercent: bonus.usePercent === undefined ? current.usePercent : bonus.usePercent,
    code: bonus.code === undefined ? current.code : bonus.code,
  };
}

/** The status is created by its own event the first time any contractor names it. */
function statusEvents(status: string | null | undefined, state: ContractorState): NewEvent[] {
  if (status == null || state.contractorStatusExists(status)) return [];
  return [{ stream: `contractor-status-${status}`, type: 'ContractorStatusCreated', data: { name: status }, expectedVersion: 'no_stream' }];
}

export function decideAddContractor(input: ContractorInput, state: ContractorState, id = state.nextContractorId()): Result<Decision<ContractorResult>> {
  const errors = innErrors(input.type, input.inn);
  if (errors.length > 0) return fail(...errors);
  const record: ContractorRecord = {
    id,
    type: input.type,
    name: input.name,
    contactPerson: input.contactPerson,
    inn: input.inn ?? null,
    kpp: input.kpp ?? null,
    status: input.status ?? null,
    discount: input.discount ?? null,
    legalAddress: input.legalAddress ?? null,
    actualAddress: input.actualAddress ?? null,
    phone1: input.phone1,
    phone2: input.phone2 ?? null,
    email: input.email ?? null,
    staff: input.staff ?? null,
    bonus: bonusOf(input.bonus),
    giftCards: input.giftCards ?? [],
    banks: input.banks ?? [],
  };
  return ok({
    events: [...statusEvents(record.status, state), { stream: `contractor-${id}`, type: 'ContractorAdded', data: record, expectedVersion: 'no_stream' }],
    result: { id, name: record.name },
  });
}

/** An omitted field stays as it is; a null clears it (an empty list for the list fields). */
export function decideEditContractor(input: ContractorInput & { id: number }, state: ContractorState): Result<Decision<ContractorResult>> {
  const current = state.contractor(input.id);
  if (!current) return fail({ code: 'ERROR_ID', field: 'id', message: `contractor ${input.id} does not exist` });
  const inn = input.inn === undefined ? current.inn : input.inn;
  const errors = innErrors(input.type, inn);
  if (errors.length > 0) return fail(...errors);
  const { id: _id, bonus, giftCards, banks, ...plain } = input;
  const next: Partial<ContractorFields> = {
    ...plain,
    bonus: bonusOf(bonus, current.bonus),
    ...(giftCards !== undefined && { giftCards: giftCards ?? [] }),
    ...(banks !== undefined && { banks: banks ?? [] }),
  };
  const changes = changedFields(current, next);
  const events: NewEvent[] = Object.keys(changes).length === 0 ? [] : [{ stream: `contractor-${input.id}`, type: 'ContractorEdited', data: { id: input.id, changes } }];
  return ok({ events: [...statusEvents(changes.status, state), ...events], result: { id: input.id, name: input.name } });
}

/** An import line edits the contractor with its id and adds one otherwise, keeping a given id. */
export function decideImportContractor(input: ImportContractor, state: ContractorState): Result<Decision<ContractorResult>> {
  if (input.id !== undefined && state.contractor(input.id)) return decideEditContractor({ ...input, id: input.id }, state);
  return decideAddContractor(input, state, input.id ?? state.nextContractorId());
}

const statusNamed = (status: string | null | undefined) => (status == null ? [] : [status]);

export const addContractor: Decider<z.output<typeof AddContractorInput>, ContractorResult> = {
  decide: decideAddContractor,
  lookups: (input) => ({ contractorStatuses: statusNamed(input.status), highestIds: ['contractors'] }),
};

export const editContractor: Decider<z.output<typeof EditContractorInput>, ContractorResult> = {
  decide: decideEditContractor,
  lookups: (input) => ({ contractors: [input.id], contractorStatuses: statusNamed(input.status) }),
};

export const importContractor: Decider<ImportContractor, ContractorResult> = {
  decide: decideImportContractor,
  lookups: (input) => ({ contractors: input.id === undefined ? [] : [input.id], contractorStatuses: statusNamed(input.status), highestIds: input.id === undefined ? ['contractors'] : [] }),
};
