// Shuffle sharding (k8s.io/apiserver/pkg/util/shufflesharding) and the flow hash
// (SHA-256 of `fsName\0distinguisher`, first 8 bytes little-endian). Reference: §17.2, §17.5.

/** Dealer.Deal: the `handSize` distinct cards of a `deckSize` deck picked by `hashValue`. */
export function deal(hashValue: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let h = hashValue;
  for (let i = 0; i < handSize; i++) {
    const d = BigInt(deckSize - i);
    const next = h / d;
    remainders.push(Number(h - d * next));
    h = next;
  }
  const hand: number[] = [];
  for (let i = 0; i < handSize; i++) {
    let card = remainders[i]!;
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
    hand.push(card);
  }
  return hand;
}

const encoder = new TextEncoder();

/** hashFlowID(fsName, distinguisher) as a uint64. */
export async function hashFlowID(fsName: string, distinguisher: string): Promise<bigint> {
  const bytes = encoder.encode(`${fsName}\u0000${distinguisher}`);
  const sum = new DataView(await crypto.subtle.digest('SHA-256', bytes));
  return sum.getBigUint64(0, true);
}
