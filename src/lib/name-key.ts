/** A name as searches compare it, whatever its case: lower case (Unicode, the same on every engine), ё read as е. */
export const nameKey = (name: string | null) => (name === null ? null : name.toLowerCase().replaceAll('ё', 'е'));

/** The words of a name as searches compare them (`nameKey`), each once: its runs of letters and digits. */
export const nameWords = (name: string): string[] => [...new Set(nameKey(name)!.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== ''))];
