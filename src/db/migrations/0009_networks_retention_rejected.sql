ALTER TABLE "batches" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "error_message" text;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "file_bytes" bigint;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "last_tokenized_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "declined_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "decline_advice" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "prior_attempts" json;--> statement-breakpoint
CREATE INDEX "orders_card_idx" ON "orders" USING btree ("merchant_id","card_token","created_at");--> statement-breakpoint
CREATE INDEX "orders_finished_idx" ON "orders" USING btree ("finished_at") WHERE finished_at is not null;--> statement-breakpoint
CREATE INDEX "webhook_events_order_idx" ON "webhook_events" USING btree ("order_session_key");