ALTER TABLE "cards" ADD COLUMN "payer_id" text;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "payer_linked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "cascade_other_cards" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "ended_cards" json;--> statement-breakpoint
CREATE INDEX "cards_payer_idx" ON "cards" USING btree ("merchant_id","payer_id","payer_linked_at");