// vi.waitFor gives up after one second unless told otherwise, and a condition
// that holds within a second on an idle laptop can take several on a loaded
// 2-core CI machine. Every wait in the suite gets a generous deadline instead
// (a test that passes its own timeout keeps it); conditions are still polled
// often, so a passing test is no slower.
import { vi } from 'vitest';

const PATIENT = { timeout: 20_000, interval: 50 };
const original = vi.waitFor.bind(vi);

vi.waitFor = ((callback, options) =>
  original(callback, typeof options === 'number' ? options : { ...PATIENT, ...options })) as typeof vi.waitFor;
