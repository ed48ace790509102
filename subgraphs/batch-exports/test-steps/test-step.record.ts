import { Field, ObjectType } from 'type-graphql';

@ObjectType('BatchExportTestStepResult')
export class TestStepResultRecord {
  @Field({ description: '`Passed` or `Failed`.' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'Why it failed, in the destination\'s words.' })
  message!: string | null;
}

/** One check of a destination (PostHog's destination test step). */
@ObjectType('BatchExportTestStep')
export class TestStepRecord {
  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => TestStepResultRecord, { nullable: true, description: 'Null until the step is run.' })
  result!: TestStepResultRecord | null;
}

@ObjectType('BatchExportTest')
export class TestRecord {
  @Field(() => [TestStepRecord])
  steps!: TestStepRecord[];
}
