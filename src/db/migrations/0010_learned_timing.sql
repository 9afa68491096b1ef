CREATE TABLE "learned_timing" (
	"merchant_id" uuid NOT NULL,
	"family" text NOT NULL,
	"brand" text NOT NULL,
	"bin" text NOT NULL,
	"weekday" smallint NOT NULL,
	"local_hour" smallint NOT NULL,
	"day_bucket" smallint NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"approvals" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learned_timing_merchant_id_family_brand_bin_weekday_local_hour_day_bucket_pk" PRIMARY KEY("merchant_id","family","brand","bin","weekday","local_hour","day_bucket")
);
--> statement-breakpoint
CREATE TABLE "learned_timing_global" (
	"family" text NOT NULL,
	"brand" text NOT NULL,
	"bin" text NOT NULL,
	"weekday" smallint NOT NULL,
	"local_hour" smallint NOT NULL,
	"day_bucket" smallint NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"approvals" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learned_timing_global_family_brand_bin_weekday_local_hour_day_bucket_pk" PRIMARY KEY("family","brand","bin","weekday","local_hour","day_bucket")
);
--> statement-breakpoint
ALTER TABLE "learned_timing" ADD CONSTRAINT "learned_timing_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "learned_timing_updated_idx" ON "learned_timing" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "learned_timing_global_updated_idx" ON "learned_timing_global" USING btree ("updated_at");