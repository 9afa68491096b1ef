ALTER TABLE "merchants" ADD COLUMN "await_updated_card" boolean;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "credential" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "card_updates" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "awaiting_card" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "recovered_by" text;