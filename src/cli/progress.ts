import { SingleBar } from 'cli-progress';

export interface Progress {
  done: number;
  total: number;
}

/** A progress bar with a rate and ETA on a terminal; a plain line about once a second otherwise. */
export function progressReporter(label: string, unit: string): { update: (p: Progress) => void; stop: () => void } {
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta}s`, stream: process.stderr });
    let begun = false;
    return {
      update: ({ done, total }) => {
        if (!begun) bar.start(total, 0, { rate: 0 });
        begun = true;
        bar.update(done, { rate: rate(done) });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  return {
    update: ({ done, total }) => {
      if (Date.now() - lastLine < 1000 && done < total) return;
      lastLine = Date.now();
      const eta = Math.ceil((total - done) / Math.max(1, rate(done)));
      process.stderr.write(`${label}: ${done}/${total} ${unit}, ${rate(done)} ${unit}/s, ETA ${eta}s\n`);
    },
    stop: () => {},
  };
}
