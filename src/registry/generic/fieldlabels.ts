// Field label conversion (runtime.Scheme.ConvertFieldLabel): which field selectors a kind accepts,
// and under which name its GetAttrs sets them. A kind without its own conversion gets
// DefaultMetaV1FieldSelectorConversion (k8s.io/apimachinery/pkg/runtime/conversion.go); the core
// kinds' lists are k8s.io/kubernetes/pkg/apis/core/v1/conversion.go and events/v1/conversion.go.
// The REST handler turns a refusal into a 400 (handlers/get.go ListResource).

import { goQuote } from '../../util/go.ts';
import type { AttrFunc } from '../../storage/interfaces.ts';
import type { Fields } from '../../storage/selection/fields.ts';
import type { KubeObject } from './store.ts';

export type FieldLabelConversionFunc = (label: string, value: string) => [string, string];

/** A field selector naming a field the kind does not support. */
export class FieldLabelError extends Error {}

/** runtime.DefaultMetaV1FieldSelectorConversion: metadata.name and metadata.namespace only. */
export const defaultMetaV1FieldSelectorConversion: FieldLabelConversionFunc = (label, value) => {
  if (label === 'metadata.name' || label === 'metadata.namespace') return [label, value];
  throw new FieldLabelError(
    `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
  );
};

/**
 * A kind's registered conversion: the labels it accepts as they are (a list), or renamed to the
 * names its GetAttrs uses (a map, as events.k8s.io's regarding.* → involvedObject.*).
 */
export function fieldLabelConversion(
  labels: readonly string[] | Readonly<Record<string, string>>,
): FieldLabelConversionFunc {
  const mapping = new Map<string, string>(Array.isArray(labels) ? labels.map((l) => [l, l]) : Object.entries(labels));
  return (label, value) => {
    const mapped = mapping.get(label);
    if (mapped === undefined) throw new FieldLabelError(`field label not supported: ${label}`);
    return [mapped, value];
  };
}

/** A strategy's GetAttrs: generic.ObjectMetaFieldsSet and the kind's own selectable fields. */
export function selectableFields(namespaced: boolean, own: (obj: KubeObject) => Fields): AttrFunc {
  return (obj) => ({
    labels: obj.metadata?.labels ?? {},
    fields: {
      'metadata.name': obj.metadata?.name ?? '',
      ...(namespaced ? { 'metadata.namespace': obj.metadata?.namespace ?? '' } : {}),
      ...own(obj as KubeObject),
    },
  });
}
