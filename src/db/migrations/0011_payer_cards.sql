ALTER TABLE "cards" ADD COLUMN "payer_id" text;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "payer_linked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "cascade_other_cards" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "ended_cards" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "original_card_token" text;--> statement-breakpoint
CREATE INDEX "cards_payer_idx" ON "cards" USING btree ("merchant_id","payer_id","payer_linked_at");--> statement-breakpoint
CREATE INDEX "orders_original_card_idx" ON "orders" USING btree ("merchant_id","original_card_token","created_at") WHERE original_card_token is not null;