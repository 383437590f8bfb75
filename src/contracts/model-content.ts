/** @module What the model sees of a result: text, or blocks with media. */
import { Type, type Static } from '@sinclair/typebox'

export const TextBlockSchema = Type.Object({ type: Type.Literal('text'), text: Type.String() })
export const ImageBlockSchema = Type.Object({
  type: Type.Literal('image'),
  mediaType: Type.String(),
  /** base64 bytes while in flight; dropped once the image is saved as an artifact (R36). */
  data: Type.Optional(Type.String()),
  artifactUri: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
})
export const ModelContentBlockSchema = Type.Union([TextBlockSchema, ImageBlockSchema], {
  $id: 'ModelContentBlock',
})
export const ModelContentSchema = Type.Union([Type.String(), Type.Array(ModelContentBlockSchema)], {
  $id: 'ModelContent',
})

export type TextBlock = Static<typeof TextBlockSchema>
export type ImageBlock = Static<typeof ImageBlockSchema>
export type ModelContentBlock = Static<typeof ModelContentBlockSchema>
export type ModelContent = Static<typeof ModelContentSchema>
