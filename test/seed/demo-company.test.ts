import { expect, test } from 'vitest';
import { agreeing, demoCompany } from '../../src/seed/demo-company.ts';

/** Each noun the demo names products with, by its gender, as a dictionary gives it. */
const GENDER: Record<string, 'm' | 'f' | 'n'> = {
  стол: 'm', стул: 'm', шкаф: 'm', смартфон: 'm', ноутбук: 'm', кабель: 'm', холодильник: 'm', молоко: 'n', кефир: 'm',
  крупа: 'f', сок: 'm', тетрадь: 'f', ручка: 'f', дрель: 'f', молоток: 'm', чайник: 'm', лампа: 'f',
};
/** The endings of a full adjective in each gender (nominative singular). */
const ENDINGS = { m: /(ый|ий|ой)$/, f: /(ая|яя)$/, n: /(ое|ее)$/ };

test('the demo’s product names are grammatical: each adjective agrees with the gender of its noun', () => {
  const names = [...demoCompany(3, { products: 400, contractors: 0, documents: 0 })].filter((l) => l.type === 'product').map((l) => String(l.data.name));
  const wrong = names.filter((name) => {
    const [adjective, noun] = name.split(' ');
    return !ENDINGS[GENDER[noun]]?.test(adjective);
  });
  expect(wrong).toEqual([]);
  expect(new Set(names.map((name) => GENDER[name.split(' ')[1]]))).toEqual(new Set(['m', 'f', 'n']));
});

test('adjectives agree as a dictionary has them: hard, soft and after a hushing consonant', () => {
  const forms = (masculine: string) => [agreeing(masculine, 'f'), agreeing(masculine, 'n')];
  expect(forms('Усиленный')).toEqual(['Усиленная', 'Усиленное']);
  expect(forms('Классический')).toEqual(['Классическая', 'Классическое']);
  expect(forms('Домашний')).toEqual(['Домашняя', 'Домашнее']);
  expect(forms('Большой')).toEqual(['Большая', 'Большое']);
  expect(forms('Свежий')).toEqual(['Свежая', 'Свежее']);
  expect(agreeing('Новый', 'm')).toBe('Новый');
});
