import type { ContractorRecord } from '../../records/contractor/events.ts';
import { fromKopecks } from '../../lib/money.ts';

/** The contractor as the API shows it, keys in the spec's order at every depth (stored records have sorted keys). */
export function contractorView(c: ContractorRecord, balance: number, bonusBalance: number) {
  return {
    id: c.id,
    type: c.type,
    name: c.name,
    contactPerson: c.contactPerson,
    inn: c.inn,
    kpp: c.kpp,
    status: c.status,
    discount: c.discount,
    legalAddress: c.legalAddress,
    actualAddress: c.actualAddress,
    phone1: c.phone1,
    phone2: c.phone2,
    email: c.email,
    staff: c.staff && { id: c.staff.id, name: c.staff.name },
    balance: fromKopecks(balance),
    bonus: { status: c.bonus.status, percent: c.bonus.percent, usePercent: c.bonus.usePercent, code: c.bonus.code, balance: fromKopecks(bonusBalance) },
    giftCards: c.giftCards.map((g) => ({ code: g.code, price: g.price })),
    banks: c.banks.map((b) => ({ bik: b.bik, bank: b.bank, korNumber: b.korNumber, rasNumber: b.rasNumber })),
  };
}
