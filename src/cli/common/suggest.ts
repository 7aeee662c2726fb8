/**
 * "Did you mean …?" for a mistyped word: the candidates within two edits of it (cobra's rule, which kubectl and
 * kcp's plugins show), or that start with it, nearest first.
 */
export function suggestions(word: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === word) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= maxDistance || (word.length > 1 && candidate.startsWith(word))) scored.push({ candidate, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate)).map((s) => s.candidate);
}

/** Levenshtein distance: insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
