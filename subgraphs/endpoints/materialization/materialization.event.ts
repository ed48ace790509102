import { Field, Int, ObjectType } from 'type-graphql';
import { MaterializationRecord } from '../endpoints/endpoint.record.js';

/** A change of an endpoint's materialization, as subscribers receive it. */
@ObjectType('EndpointMaterializationChange')
export class MaterializationChange {
  @Field(() => Int, { description: 'Increases by one per change of this endpoint; a gap means missed events.' })
  sequence!: number;

  @Field()
  name!: string;

  @Field(() => Int, { description: 'The version whose materialization changed.' })
  version!: number;

  @Field({ description: 'False once the endpoint is deleted (the last event of the stream).' })
  exists!: boolean;

  @Field(() => MaterializationRecord)
  materialization!: MaterializationRecord;
}

export type MaterializationPayload = Omit<MaterializationChange, 'sequence'>;

/** The pub/sub topic of one endpoint's materialization changes. */
export const materializationTopic = (environmentId: number, name: string) => `endpoint_materialization:${environmentId}:${name}`;
