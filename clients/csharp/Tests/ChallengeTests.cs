using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>Challenges: definitions, a time-boxed one, joined by code, standings, ended, rematched; declining; friend codes.</summary>
    internal static class ChallengeTests
    {
        private const string Highscore = "com.example.dash.highscore";

        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "challenges: a defined time-boxed race, joined by invite code, standings, ended, rematched",
                NeedsServer = true, Body = World.Test(TimedRace),
            });
            tests.Add(new TestCase
            {
                Name = "challenges: a score challenge declined, candidates, unknown challenge",
                NeedsServer = true, Body = World.Test(Decline),
            });
        }

        /// <summary>Ann with Bo as a friend by id and Cy as a friend by code.</summary>
        private static async Task<PodiumClient[]> ThreeFriendsAsync(World world)
        {
            var ann = await world.PlayerAsync("ann");
            var bo = await world.PlayerAsync("bo");
            var cy = await world.PlayerAsync("cy");
            await ann.RequestFriendAsync(bo.PlayerId);
            await bo.AcceptFriendAsync(ann.PlayerId);
            Invite friendCode;
            {
                var podium = ann;
                // docs:begin friends-code
                var invite = await podium.CreateFriendInviteAsync();
                Debug.Log("my friend code: " + invite.Code);
                // docs:end friends-code
                friendCode = invite;
            }
            Check.Equal("friend", friendCode.Purpose, "a friend code");
            Check.That(System.Text.RegularExpressions.Regex.IsMatch(friendCode.Code, "^[2-9A-HJKMNP-TV-Z]{5}-[2-9A-HJKMNP-TV-Z]{5}$"),
                "the code's shown form: " + friendCode.Code);
            {
                var podium = cy;
                var code = friendCode.Code.ToLowerInvariant().Replace("-", " ");
                // docs:begin friends-redeem
                var relation = await podium.RedeemFriendInviteAsync(code, "dash");
                // docs:end friends-redeem
                Check.Equal(ann.PlayerId, relation.PlayerId, "the code's owner");
                Check.Equal(FriendState.OutgoingRequest, relation.State, "a friend request to the owner");
            }
            Check.Equal(FriendState.Friends, (await ann.AcceptFriendAsync(cy.PlayerId)).State, "Ann accepts Cy");
            Check.Equal(1L, (await ann.GetInvitesAsync()).Single(i => i.Code == friendCode.Code).Uses, "the code was used once");
            Check.That(await ann.RevokeInviteAsync(friendCode.Code), "revoked");
            await Check.FailsAsync(ErrorCodes.InviteRevoked, () => bo.RedeemFriendInviteAsync(friendCode.Code), "a revoked code");
            return new[] { ann, bo, cy };
        }

        private static async Task TimedRace(World world)
        {
            var players = await ThreeFriendsAsync(world);
            PodiumClient ann = players[0], bo = players[1], cy = players[2];
            var annFeed = world.FeedOf(ann);
            var boFeed = world.FeedOf(bo);
            await Task.WhenAll(ann.ConnectAsync(new[] { "dash" }), bo.ConnectAsync(new[] { "dash" }));

            ChallengeDetail started;
            Invite challengeCode;
            {
                var podium = ann;
                var friendId = bo.PlayerId;
                // docs:begin challenge-timed
                var definitions = await podium.GetChallengeDefinitionsAsync("dash");
                var sprint = definitions.First(d => d.Id == "com.example.dash.sprint");
                var race = await podium.StartTimedChallengeAsync("dash", new[] { friendId },
                    sprint.Durations[0], definitionId: sprint.Id);
                var invite = await podium.CreateChallengeInviteAsync("dash", race.ChallengeId);
                Debug.Log("share this code: " + invite.Code);
                // docs:end challenge-timed
                Check.That(sprint.AttemptsAllowed == 3 && sprint.LeaderboardId == Highscore && sprint.Repeatable, "the sprint's definition");
                Check.Equal<long?>(1, definitions.Single(d => d.Id == "com.example.dash.trial").AttemptsAllowed, "the trial: one run");
                started = race;
                challengeCode = invite;
            }
            Check.That(started.Kind == "timed" && started.State == "running" && started.DefinitionId == "com.example.dash.sprint",
                "a running defined race");
            Check.Equal<long?>(3, started.AttemptsAllowed, "three runs each");
            Check.Equal(started.CreatedAt + 600000, started.EndsAt.Value, "ten minutes");
            Check.Sequence(new[] { ann.PlayerId, bo.PlayerId }.OrderBy(p => p, StringComparer.Ordinal),
                started.Receivers.Select(r => r.PlayerId), "the participants, sorted");
            Check.That(started.Receivers.All(r => r.State == "pending" && r.Attempts == 0), "pending, no runs yet");
            Check.That(challengeCode.Purpose == "challenge" && challengeCode.ChallengeId == started.ChallengeId
                && challengeCode.GameId == "dash", "a code for the race");
            var received = await boFeed.WaitForAsync("challenge.received", n => (string)n.Details["challengeId"] == started.ChallengeId);
            Check.Equal("timed", received.Details["kind"], "Bo hears of the race");

            {
                var podium = cy;
                var code = challengeCode.Code;
                // docs:begin challenge-join
                var joined = await podium.JoinChallengeAsync("dash", code);
                await podium.SubmitScoreAsync("dash", joined.BoardId, 1500, challengeId: joined.ChallengeId);
                var standings = await podium.GetChallengeStandingsAsync("dash", joined.ChallengeId);
                // docs:end challenge-join
                Check.Equal(started.ChallengeId, joined.ChallengeId, "joined the race");
                Check.Equal("pending", joined.Receiver(cy.PlayerId).State, "Cy takes part");
                Check.Equal("running", standings.State, "still running");
            }
            var joinedNotice = await annFeed.WaitForAsync("challenge.joined");
            Check.Equal(cy.PlayerId, joinedNotice.Details["playerId"], "the code's owner hears who joined");
            ChallengeStandings order = null;
            await Stack.EventuallyAsync(async () =>
            {
                order = await ann.GetChallengeStandingsAsync("dash", started.ChallengeId);
                return order.Standings.Count == 1;
            }, "Cy's run counts in the standings");
            var first = order.Standings[0];
            Check.That(first.PlayerId == cy.PlayerId && first.Value == 1500 && first.Rank == 1 && first.Attempts == 1, "Cy leads with one run");

            var ended = await Stack.AdminAsync("challenge.admin.end", "dash", new Dictionary<string, object> { { "challengeId", started.ChallengeId } });
            Check.Equal(started.ChallengeId, ended["challengeId"], "an operator ends the race early");
            var endedNotice = await annFeed.WaitForAsync("challenge.ended", n => (string)n.Details["challengeId"] == started.ChallengeId);
            Check.That(endedNotice.Message.Contains(cy.PlayerId + " won with 1500"), "the end's message: " + endedNotice.Message);
            var final = await ann.GetChallengeAsync("dash", started.ChallengeId);
            Check.Equal("ended", final.State, "ended");
            Check.That(final.Receivers.All(r => r.State == "completed"), "everyone completed");

            {
                var podium = ann;
                var race = started;
                // docs:begin challenge-rematch
                var rematch = await podium.RematchAsync("dash", race.ChallengeId);
                // docs:end challenge-rematch
                Check.Equal(race.ChallengeId, rematch.RematchOf, "a rematch of the race");
                Check.Equal("running", rematch.State, "running again");
                Check.Equal<long?>(600000, rematch.DurationMilliseconds, "as long as the first");
                Check.Equal(3, rematch.Receivers.Count, "the three of them");
                await Check.FailsAsync(ErrorCodes.Conflict, () => podium.RematchAsync("dash", rematch.ChallengeId), "a rematch of a running race");
            }
        }

        private static async Task Decline(World world)
        {
            var players = await ThreeFriendsAsync(world);
            PodiumClient ann = players[0], bo = players[1], cy = players[2];
            await ann.SubmitScoreAsync("dash", Highscore, 10);
            await cy.SubmitScoreAsync("dash", Highscore, 50);
            var candidates = await ann.GetChallengeCandidatesAsync("dash", Highscore, 10);
            Check.Sequence(new[] { bo.PlayerId }, candidates, "Bo has no score as good; Cy has");
            var issued = await ann.IssueScoreChallengeAsync("dash", Highscore, new[] { bo.PlayerId, cy.PlayerId },
                expiresInMilliseconds: 3600000);
            Check.Equal(issued.CreatedAt + 3600000, issued.ExpiresAt.Value, "expires in an hour");
            {
                var podium = bo;
                var challengeId = issued.ChallengeId;
                // docs:begin challenge-decline
                var declined = await podium.DeclineChallengeAsync("dash", challengeId);
                // docs:end challenge-decline
                Check.Equal("declined", declined.Receiver(bo.PlayerId).State, "Bo declined");
                Check.Equal("pending", declined.Receiver(cy.PlayerId).State, "Cy has not");
            }
            var again = await Check.FailsAsync(ErrorCodes.Conflict, () => bo.DeclineChallengeAsync("dash", issued.ChallengeId), "declining twice");
            Check.Equal("payload.challengeId", again.Field, "the challenge is to blame");
            var declinedList = await bo.GetReceivedChallengesAsync("dash", "declined");
            Check.Sequence(new[] { issued.ChallengeId }, declinedList.Select(c => c.ChallengeId), "Bo's declined challenges");
            var unknown = await Check.FailsAsync(ErrorCodes.UnknownChallenge,
                () => cy.GetChallengeAsync("dash", PodiumClient.NewRequestId()), "a challenge that is not there");
            Check.Equal<int?>(404, unknown.Status, "unknown_challenge is 404");
            await bo.SubmitScoreAsync("dash", Highscore, 5);
            var stranger = await Check.FailsAsync(ErrorCodes.Forbidden,
                () => bo.IssueScoreChallengeAsync("dash", Highscore, new[] { cy.PlayerId }), "challenging someone who is not a friend");
            Check.Equal("payload.receivers", stranger.Field, "the receivers are to blame");
        }
    }
}
