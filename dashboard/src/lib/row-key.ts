// Keys of the editors' rows: unique for the page's life, so a row keeps its identity (and a default, its row)
// through renames, moves and removals.
let lastKey = 0;

export const newRowKey = (): number => ++lastKey;
