import { describe, expect, it } from 'vitest';
import { type FollowingAcrossServers, feedResults } from '../../bench/feed.ts';

const across = (servers: number, p99: number): FollowingAcrossServers => ({
  postgres: '15.8',
  servers,
  streams: 100,
  deliveryMs: { writes: 200, p50: 31, p99, max: p99 + 10, writeAnswerP99: 20 },
});

describe("the feed phase's targets", () => {
  it('judges delivery across PostgreSQL servers against 250 ms, a row a count of servers, with no SQLite figures', () => {
    const feed = feedResults(undefined, [across(2, 72.4), across(3, 250.1)]);
    expect(feed.targets).toEqual([
      { target: 'write through one server to delivery on every stream of the other, p99 ≤ 250 ms (PostgreSQL, 2 servers)', value: '72.4 ms', met: true },
      { target: 'write through one server to delivery on every stream of the others, p99 ≤ 250 ms (PostgreSQL, 3 servers)', value: '250.1 ms', met: false },
    ]);
    expect(feed.acrossServers).toHaveLength(2);
    expect(feed.writes).toBeUndefined();
  });

  it('keeps no acrossServers when no count of two servers or more ran', () => {
    expect(feedResults(undefined, [])).toEqual({ targets: [] });
  });
});
