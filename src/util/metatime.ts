// metav1.Time's JSON form (k8s.io/apimachinery/pkg/apis/meta/v1/time.go MarshalJSON): RFC 3339 in
// whole seconds, UTC. Every create and update stamps one, so the text is computed once per second.

let lastSecond = NaN;
let lastText = '';

/** metav1.Time text of `d`: `2006-01-02T15:04:05Z`. */
export function formatTime(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second === lastSecond) return lastText;
  const iso = d.toISOString();
  // `YYYY-MM-DDTHH:mm:ss.sssZ` (years 0–9999); other years keep the general form.
  lastText = iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
  lastSecond = second;
  return lastText;
}
