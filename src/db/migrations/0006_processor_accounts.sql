CREATE TABLE "processor_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"type" text NOT NULL,
	"label" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"credentials_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "account_id" uuid;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "route" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "raw_code" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "raw_message" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "network_transaction_id" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "unknown_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "processor_accounts" ADD CONSTRAINT "processor_accounts_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "processor_accounts_label_uq" ON "processor_accounts" USING btree ("merchant_id","label") WHERE removed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "processor_accounts_default_uq" ON "processor_accounts" USING btree ("merchant_id") WHERE is_default and removed_at is null;