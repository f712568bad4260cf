/**
 * How much a knowledge pack may hold (the request schemas refuse more with a 422 at the
 * field; the store's conditions keep a draft within them). Pure constants: the stores that
 * read packs import them without the request schemas.
 */
export const KNOWLEDGE_LIMITS = {
  nameChars: 200,
  descriptionChars: 2000,
  titleChars: 300,
  sourceRefChars: 2000,
  /** One document: fits one DynamoDB item with room for its other fields. */
  documentBytes: 256 * 1024,
  documentsPerPack: 2000,
  /** The draft's content in all: what one publish splits and indexes. */
  packBytes: 16 * 1024 * 1024,
} as const;
