CREATE TABLE "batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"sha256" text NOT NULL,
	"status" text NOT NULL,
	"entry_count" integer NOT NULL,
	"accepted_count" integer NOT NULL,
	"rejected_count" integer NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone DEFAULT now() NOT NULL,
	"results_written_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"batch_id" uuid,
	"sequence_number" integer,
	"order_id" text NOT NULL,
	"idempotency_key" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"card_token" text NOT NULL,
	"card_brand" text,
	"card_bin" text,
	"card_last4" text,
	"expires_at" timestamp with time zone,
	"decline_code" text NOT NULL,
	"decline_source" text NOT NULL,
	"request" json NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "batches_merchant_sha256_uq" ON "batches" USING btree ("merchant_id","sha256") WHERE status <> 'rejected';--> statement-breakpoint
CREATE UNIQUE INDEX "orders_merchant_order_id_uq" ON "orders" USING btree ("merchant_id","order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_merchant_idempotency_key_uq" ON "orders" USING btree ("merchant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "orders_batch_sequence_idx" ON "orders" USING btree ("batch_id","sequence_number");