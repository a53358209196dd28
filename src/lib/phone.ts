/** The digits a phone is compared by: `+7 (916) 123-45-67` = `89161234567` = `79161234567`. */
export function phoneDigits(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.length === 11 && digits.startsWith('8') ? `7${digits.slice(1)}` : digits;
}
