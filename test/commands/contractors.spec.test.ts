import { describe, it } from 'vitest';
import { AddContractorInput, contractorCodes, addContractor as addContractorDecider, editContractor as editContractorDecider, EditContractorInput } from '../../src/records/contractor/deciders.ts';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import { command, contractorRecord, given } from './decider-spec.ts';

const addContractor = command(AddContractorInput, addContractorDecider, contractorCodes);
const editContractor = command(EditContractorInput, editContractorDecider, contractorCodes);
const importContractor = importLineKinds.get('contractor')!;

/** The fewest fields an API record may have; contractorRecord's defaults are what they store. */
const minimal = { type: 'ЮЛ', name: 'ООО Вектор', contactPerson: 'Петров Пётр', phone1: '+7 916 000-00-01' };

const vector = contractorRecord({ id: 1, inn: '7701234567', kpp: '770101001', status: 'Постоянный', email: 'info@vector.ru', discount: 5 });
const withBonus = contractorRecord({ id: 2, type: 'ФЛ', name: 'Иванов Иван', contactPerson: 'Иванов Иван', bonus: { status: 1, percent: 5, usePercent: 30, code: 'B-2' } });
const book = { contractors: [vector, withBonus], contractorStatuses: ['Постоянный'] };
/** The edit record that restates vector exactly as it is. */
const vectorOnWire = { ...minimal, id: 1, inn: '7701234567', kpp: '770101001', status: 'Постоянный', email: 'info@vector.ru', discount: 5 };

describe('add-contractor', () => {
  it('adds a contractor under the next id, every unset field at its empty value', () => {
    given(book)
      .when(addContractor, minimal)
      .thenEvents([{ stream: 'contractor-3', type: 'ContractorAdded', data: contractorRecord({ id: 3 }), expectedVersion: 'no_stream' }])
      .andResult({ id: 3, name: 'ООО Вектор' });
  });

  it('a status not seen before is created by its own event, ahead of the contractor', () => {
    given(book)
      .when(addContractor, { ...minimal, status: 'VIP' })
      .thenEvents([
        { stream: 'contractor-status-VIP', type: 'ContractorStatusCreated', data: { name: 'VIP' }, expectedVersion: 'no_stream' },
        { stream: 'contractor-3', type: 'ContractorAdded', data: contractorRecord({ id: 3, status: 'VIP' }), expectedVersion: 'no_stream' },
      ]);
  });

  it('a known status is not created again', () => {
    given(book)
      .when(addContractor, { ...minimal, status: 'Постоянный' })
      .thenEvents([{ stream: 'contractor-3', type: 'ContractorAdded', data: contractorRecord({ id: 3, status: 'Постоянный' }), expectedVersion: 'no_stream' }]);
  });

  it('inn need not be unique', () => {
    given(book)
      .when(addContractor, { ...minimal, inn: vector.inn })
      .thenEvents([{ stream: 'contractor-3', type: 'ContractorAdded', data: contractorRecord({ id: 3, inn: vector.inn }), expectedVersion: 'no_stream' }]);
  });

  it.each([
    ['ЮЛ', '7701234567'],
    ['ИП', '770123456789'],
    ['ФЛ', '770123456789'],
  ])('accepts a %s with inn %s', (type, inn) => {
    given().when(addContractor, { ...minimal, type, inn }).thenEvents([{ stream: 'contractor-1', type: 'ContractorAdded', data: contractorRecord({ id: 1, type, inn }), expectedVersion: 'no_stream' }]);
  });

  it.each([
    ['ЮЛ', '770123456789'],
    ['ИП', '7701234567'],
    ['ФЛ', '7701234567'],
    ['ЮЛ', '77012345AB'],
  ])('refuses a %s with inn %s', (type, inn) => {
    given().when(addContractor, { ...minimal, type, inn }).thenErrors({ code: 'ERROR_INN', field: 'inn' });
  });

  it('a type other than ЮЛ, ИП, ФЛ is ERROR_TYPE', () => {
    given().when(addContractor, { ...minimal, type: 'ООО' }).thenErrors({ code: 'ERROR_TYPE', field: 'type' });
  });

  it.each(['9161234567', '+7 (916) 123-45-67', '123456789012345'])('accepts phone %s (10 to 15 digits, stored as written)', (phone1) => {
    given().when(addContractor, { ...minimal, phone1 }).thenEvents([{ stream: 'contractor-1', type: 'ContractorAdded', data: contractorRecord({ id: 1, phone1 }), expectedVersion: 'no_stream' }]);
  });

  it.each(['916123456', '1234567890123456', 'телефон'])('refuses phone %s with ERROR_PHONE, for either phone', (phone) => {
    given().when(addContractor, { ...minimal, phone1: phone }).thenErrors({ code: 'ERROR_PHONE', field: 'phone1' });
    given().when(addContractor, { ...minimal, phone2: phone }).thenErrors({ code: 'ERROR_PHONE', field: 'phone2' });
  });

  it('phone1 is required', () => {
    const { phone1: _phone, ...withoutPhone } = minimal;
    given().when(addContractor, withoutPhone).thenErrors({ code: 'ERROR_PHONE', field: 'phone1' });
  });

  it('discount runs from 0 to 100', () => {
    for (const discount of [0, 100]) {
      given().when(addContractor, { ...minimal, discount }).thenEvents([{ stream: 'contractor-1', type: 'ContractorAdded', data: contractorRecord({ id: 1, discount }), expectedVersion: 'no_stream' }]);
    }
    for (const discount of [-1, 100.5]) given().when(addContractor, { ...minimal, discount }).thenErrors({ code: 'ERROR_DISCOUNT', field: 'discount' });
  });

  it('an email that does not look like an address is ERROR_EMAIL', () => {
    for (const email of ['vector.ru', 'info@vector', 'in fo@vector.ru']) given().when(addContractor, { ...minimal, email }).thenErrors({ code: 'ERROR_EMAIL', field: 'email' });
  });

  it('lists every problem of the record at once', () => {
    given()
      .when(addContractor, { type: 'ЮЛ', name: 'ООО Вектор', contactPerson: ' ', phone1: '1', email: 'x', discount: 101 })
      .thenErrors(
        { code: 'ERROR_CONTACT_PERSON', field: 'contactPerson' },
        { code: 'ERROR_PHONE', field: 'phone1' },
        { code: 'ERROR_DISCOUNT', field: 'discount' },
        { code: 'ERROR_EMAIL', field: 'email' },
      );
  });
});

describe('edit-contractor', () => {
  it('restating the current values appends nothing', () => {
    given(book).when(editContractor, vectorOnWire).thenNothing().andResult({ id: 1, name: 'ООО Вектор' });
  });

  it('omitted optional fields stay; only what changed is carried', () => {
    given(book)
      .when(editContractor, { ...minimal, id: 1, legalAddress: 'Москва, ул. Ленина, 1' })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { legalAddress: 'Москва, ул. Ленина, 1' } } }]);
  });

  it('null clears an optional field', () => {
    given(book)
      .when(editContractor, { ...vectorOnWire, kpp: null, email: null, discount: null })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { kpp: null, email: null, discount: null } } }]);
  });

  it('a bonus programme, which the API record cannot carry, is kept', () => {
    given(book).when(editContractor, { ...minimal, id: 2, type: 'ФЛ', name: 'Иванов Иван', contactPerson: 'Иванов Иван' }).thenNothing();
  });

  it('a new status is created by its own event; clearing the status creates none', () => {
    given(book)
      .when(editContractor, { ...vectorOnWire, status: 'VIP' })
      .thenEvents([
        { stream: 'contractor-status-VIP', type: 'ContractorStatusCreated', data: { name: 'VIP' }, expectedVersion: 'no_stream' },
        { stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { status: 'VIP' } } },
      ]);
    given(book)
      .when(editContractor, { ...vectorOnWire, status: null })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { status: null } } }]);
  });

  it('moving to a status another contractor already has creates no status', () => {
    const twoStatuses = { ...book, contractorStatuses: ['Постоянный', 'VIP'] };
    given(twoStatuses)
      .when(editContractor, { ...vectorOnWire, status: 'VIP' })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { status: 'VIP' } } }]);
  });

  it('an unknown id is ERROR_ID', () => {
    given(book).when(editContractor, { ...vectorOnWire, id: 9 }).thenErrors({ code: 'ERROR_ID', field: 'id' });
  });

  it('a new type is checked against the inn the contractor keeps', () => {
    // Omitted inn stays the legal entity's 10 digits, which an entrepreneur cannot have.
    given(book).when(editContractor, { ...minimal, id: 1, type: 'ИП' }).thenErrors({ code: 'ERROR_INN', field: 'inn' });
    given(book)
      .when(editContractor, { ...minimal, id: 1, type: 'ИП', inn: '770123456789' })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { type: 'ИП', inn: '770123456789' } } }]);
  });

  it('the required fields of the edit path must be present', () => {
    given(book).when(editContractor, { id: 1, name: 'ООО Вектор' }).thenErrors(
      { code: 'ERROR_TYPE', field: 'type' },
      { code: 'ERROR_CONTACT_PERSON', field: 'contactPerson' },
      { code: 'ERROR_PHONE', field: 'phone1' },
    );
  });
});

describe('import line: contractor', () => {
  it('with an unknown id creates the contractor under that id, with the import-only fields', () => {
    given(book)
      .when(importContractor, {
        ...minimal,
        id: 50,
        staff: { id: 3, name: 'Сидоров' },
        bonus: { status: 1, percent: 3 },
        giftCards: [{ code: 'GC-1', price: 500 }],
        banks: [{ bik: '044525225', bank: 'Сбербанк', korNumber: '30101810400000000225', rasNumber: '40702810000000000001' }],
      })
      .thenEvents([
        {
          stream: 'contractor-50',
          type: 'ContractorAdded',
          data: contractorRecord({
            id: 50,
            staff: { id: 3, name: 'Сидоров' },
            bonus: { status: 1, percent: 3, usePercent: null, code: null },
            giftCards: [{ code: 'GC-1', price: '500' }],
            banks: [{ bik: '044525225', bank: 'Сбербанк', korNumber: '30101810400000000225', rasNumber: '40702810000000000001' }],
          }),
          expectedVersion: 'no_stream',
        },
      ])
      .andResult({ id: 50, name: 'ООО Вектор' });
  });

  it('with an id that exists edits it; the same line again appends nothing', () => {
    given(book).when(importContractor, vectorOnWire).thenNothing();
    given(book)
      .when(importContractor, { ...vectorOnWire, actualAddress: 'Москва' })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { actualAddress: 'Москва' } } }]);
  });

  it('a partial bonus changes only the keys it gives; null ends the programme', () => {
    const ivanov = { ...minimal, id: 2, type: 'ФЛ', name: 'Иванов Иван', contactPerson: 'Иванов Иван' };
    given(book)
      .when(importContractor, { ...ivanov, bonus: { percent: 7 } })
      .thenEvents([{ stream: 'contractor-2', type: 'ContractorEdited', data: { id: 2, changes: { bonus: { status: 1, percent: 7, usePercent: 30, code: 'B-2' } } } }]);
    given(book)
      .when(importContractor, { ...ivanov, bonus: null })
      .thenEvents([{ stream: 'contractor-2', type: 'ContractorEdited', data: { id: 2, changes: { bonus: { status: 0, percent: null, usePercent: null, code: null } } } }]);
  });

  it('null empties a list field', () => {
    const carded = { contractors: [contractorRecord({ id: 1, giftCards: [{ code: 'GC-1', price: '500' }] })] };
    given(carded)
      .when(importContractor, { ...minimal, id: 1, giftCards: null })
      .thenEvents([{ stream: 'contractor-1', type: 'ContractorEdited', data: { id: 1, changes: { giftCards: [] } } }]);
  });

  it('keeps the record rules of the API', () => {
    given(book).when(importContractor, { ...minimal, id: 50, type: 'ИП', inn: '7701234567' }).thenErrors({ code: 'ERROR_INN', field: 'inn' });
    given(book).when(importContractor, { ...minimal, id: 50, phone2: '12' }).thenErrors({ code: 'ERROR_PHONE', field: 'phone2' });
  });
});
