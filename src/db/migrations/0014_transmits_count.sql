ALTER TABLE "transmits" ADD COLUMN "card_token" text;--> statement-breakpoint
ALTER TABLE "transmits" ADD COLUMN "card_fingerprint" text;--> statement-breakpoint
ALTER TABLE "transmits" ADD COLUMN "authorized_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transmits" ADD COLUMN "initiator" text;--> statement-breakpoint
ALTER TABLE "transmits" ADD COLUMN "decline_source" text;--> statement-breakpoint
ALTER TABLE "transmits" ADD COLUMN "prior_attempts" json;--> statement-breakpoint
CREATE INDEX "transmits_card_idx" ON "transmits" USING btree ("merchant_id","card_token","authorized_at") WHERE card_token is not null;--> statement-breakpoint
CREATE INDEX "transmits_fingerprint_idx" ON "transmits" USING btree ("merchant_id","card_fingerprint","authorized_at") WHERE card_fingerprint is not null;