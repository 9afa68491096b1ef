ALTER TABLE "orders" ADD COLUMN "declined_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "decline_advice" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "prior_attempts" json;--> statement-breakpoint
CREATE INDEX "orders_card_idx" ON "orders" USING btree ("merchant_id","card_token","created_at");