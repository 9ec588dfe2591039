// Moved to src/util/protobuf.ts (discovery encodes protobuf too). This re-export keeps branches
// written against the old path building; import from util/ in new code.

/** @deprecated Import from src/util/protobuf.ts. */
export * from '../util/protobuf.ts';
