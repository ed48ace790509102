import { Field, ObjectType } from 'type-graphql';

/** Whether demo data is being generated. The platform has no demo-data generator, so never. */
@ObjectType('DemoDataStatus')
export class DemoDataStatus {
  @Field()
  is_generating_demo_data!: boolean;
}

export const NOT_GENERATING: DemoDataStatus = { is_generating_demo_data: false };
